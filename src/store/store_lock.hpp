#pragma once
// One driver per sweep store: an exclusive flock on "<store>/driver.lock", taken before anything
// in the store is written and held for the driver's life. The kernel drops it when the holder
// dies, however it dies, so a killed driver never blocks a resume. The descriptor is close-on-
// exec: launched jobs must not inherit the lock and outlive it.

#include <string>

namespace colltune {

class StoreLock {
 public:
  // Takes the lock on `store_dir` (which must exist), or throws ConfigError naming the store and
  // the holder's pid, host and start time, as the holder wrote them into the lock file.
  explicit StoreLock(const std::string& store_dir);
  ~StoreLock();
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace colltune
