#include "runner/watchdog.hpp"

#include <algorithm>

namespace colltune {

Watchdog::Watchdog(std::function<void(const std::string&)> on_expiry)
    : on_expiry_(std::move(on_expiry)), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::chrono::milliseconds limit, std::string what) {
  {
    std::lock_guard lock(mutex_);
    armed_ = limit.count() > 0;
    limit_ = limit;
    progress_seen_ = progress_.load(std::memory_order_relaxed);
    last_progress_ = std::chrono::steady_clock::now();
    what_ = std::move(what);
  }
  changed_.notify_all();
}

void Watchdog::disarm() {
  {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }
  changed_.notify_all();
}

Watchdog::State Watchdog::state() {
  std::lock_guard lock(mutex_);
  const auto idle = std::chrono::steady_clock::now() - last_progress_;
  return State{progress_.load(std::memory_order_relaxed),
               armed_ ? std::chrono::duration_cast<std::chrono::milliseconds>(idle).count() : -1,
               armed_};
}

void Watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    // Progress is polled, not signalled, so that progress() stays free for the measured thread.
    const auto now = std::chrono::steady_clock::now();
    const std::uint64_t seen = progress_.load(std::memory_order_relaxed);
    if (seen != progress_seen_) {
      progress_seen_ = seen;
      last_progress_ = now;
    }
    if (now - last_progress_ >= limit_) {
      const std::string what = what_;
      armed_ = false;
      lock.unlock();
      on_expiry_(what);
      lock.lock();
      continue;
    }
    const auto poll = std::clamp<std::chrono::milliseconds>(
        limit_ / 20, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
    changed_.wait_for(lock, poll);
  }
}

}  // namespace colltune
