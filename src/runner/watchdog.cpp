#include "runner/watchdog.hpp"

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
    deadline_ = std::chrono::steady_clock::now() + limit;
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

void Watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      const std::string what = what_;
      armed_ = false;
      lock.unlock();
      on_expiry_(what);
      lock.lock();
    }
  }
}

}  // namespace colltune
