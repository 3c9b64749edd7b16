#pragma once
// A deadline on each measurement step, so a hung peer never hangs the tool.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace colltune {

class Watchdog {
 public:
  // `on_expiry` runs on the watchdog's own thread with the armed step's description; it is
  // expected to end the process (print, then MPI_Abort).
  explicit Watchdog(std::function<void(const std::string&)> on_expiry);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts a deadline `limit` from now for the step `what`; a limit of zero disables it.
  void arm(std::chrono::milliseconds limit, std::string what);
  void disarm();

 private:
  void loop();
  std::function<void(const std::string&)> on_expiry_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::string what_;
  std::thread thread_;
};

}  // namespace colltune
