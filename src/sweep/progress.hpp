#pragma once
// The sweep's console: one line per launch in logs (CI, sbatch), a live status line on a
// terminal, both with elapsed time and an ETA. Internal to src/sweep (driver.cpp).

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "sweep/supervisor.hpp"

namespace colltune {

inline std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(seconds);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

class Progress {
 public:
  Progress(std::FILE* out, std::size_t total)
      : out_(out), total_(total), tty_(isatty(fileno(out))) {}

  void started(std::size_t index, const std::string& label, int round) {
    index_ = index;
    label_ = label;
    round_ = round;
    if (!tty_) fmt::print(out_, "sweep: [{}/{}] {} (round {}) ...\n", index, total_, label, round);
    tick(0);
  }
  void tick(double point_elapsed) {
    if (!tty_) return;
    const double elapsed = sweep_elapsed_ + point_elapsed;
    const double per_launch = finished_ > 0 ? sweep_elapsed_ / static_cast<double>(finished_) : 0;
    const double eta = per_launch * static_cast<double>(total_ - index_ + 1) - point_elapsed;
    fmt::print(out_, "\r\033[K[{}/{}] {} (round {}) | elapsed {} | ETA {}", index_, total_, label_,
               round_, clock_text(elapsed),
               finished_ > 0 ? clock_text(std::max(eta, 0.0)) : "--:--");
    std::fflush(out_);
  }
  void finished(const LaunchOutcome& o, std::size_t launches) {
    sweep_elapsed_ += o.seconds;
    finished_ += launches;
    if (tty_) {
      if (o.status != LaunchStatus::kDone) {
        fmt::print(out_, "\r\033[K[{}/{}] {} (round {}): {}\n", index_, total_, label_, round_,
                   name(o.status));
      }
    } else {
      // Logs (CI, sbatch) get the clock too: elapsed, and the launches left at the mean so far.
      const double left = sweep_elapsed_ /
                          static_cast<double>(std::max<std::size_t>(finished_, 1)) *
                          static_cast<double>(total_ > index_ ? total_ - index_ : 0);
      fmt::print(out_, "sweep: [{}/{}] {} in {:.2f} s | elapsed {} | ETA {}\n", index_, total_,
                 name(o.status), o.seconds, clock_text(sweep_elapsed_), clock_text(left));
    }
    std::fflush(out_);
  }
  void clear() {
    if (tty_) fmt::print(out_, "\r\033[K");
  }

 private:
  std::FILE* out_;
  std::size_t total_;
  bool tty_;
  std::size_t index_ = 0;
  std::string label_;
  int round_ = 1;
  double sweep_elapsed_ = 0;
  std::size_t finished_ = 0;
};

}  // namespace colltune
