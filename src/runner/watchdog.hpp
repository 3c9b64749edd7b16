#pragma once
// A deadline on each measurement step, so a hung peer never hangs the tool.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace colltune {

class Watchdog {
 public:
  // `on_expiry` runs on the watchdog's own thread with the armed step's description; it is
  // expected to end the process without calling MPI (MPI runs single-threaded): print, then exit.
  explicit Watchdog(std::function<void(const std::string&)> on_expiry);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Watches the step `what`: it expires once no progress() was seen for `limit` (found within
  // limit / 20, at most 1 s, later); a limit of zero disables it. Main thread, once per step.
  void arm(std::chrono::milliseconds limit, std::string what);
  void disarm();
  // After each wait for launched work returns. Lock-free and wakes nobody: in per-op timing it
  // runs between ops, where waking a thread would cost the next op its core.
  void progress() noexcept { progress_.fetch_add(1, std::memory_order_relaxed); }

  struct State {
    std::uint64_t progress = 0;  // progress() calls so far
    std::int64_t idle_ms = -1;   // since the last progress the poll saw; -1 while not armed
    bool armed = false;
  };
  // What a roll call answers for this rank: any thread (the responder's); holds the lock briefly.
  State state();

 private:
  void loop();
  std::function<void(const std::string&)> on_expiry_;
  std::atomic<std::uint64_t> progress_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool stopping_ = false;
  std::chrono::milliseconds limit_{0};
  std::uint64_t progress_seen_ = 0;
  std::chrono::steady_clock::time_point last_progress_;
  std::string what_;
  std::thread thread_;
};

}  // namespace colltune
