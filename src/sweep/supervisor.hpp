#pragma once
// Runs one launch as its own process group under a wall-clock limit; kills the whole process
// tree on expiry or interrupt.

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "sweep/launch.hpp"

namespace colltune {

enum class LaunchStatus { kDone, kFailed, kTimeout, kInterrupted };

struct LaunchOutcome {
  LaunchStatus status = LaunchStatus::kFailed;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  double seconds = 0;
};

struct SuperviseOptions {
  double limit_seconds = 600;
  const std::atomic<bool>* interrupted = nullptr;       // set from a signal handler
  std::function<void(pid_t)> on_started;                // after the spawn, before waiting
  std::function<void(double elapsed_seconds)> on_tick;  // about every 0.5 s while it runs
};

// Makes this process the reaper of orphaned descendants, so ranks whose launcher died can
// still be found and killed. Call once, early.
void become_subreaper();

// Spawns launch.argv (no shell) with stdout and stderr in `log_path`, waits up to the limit.
LaunchOutcome run_supervised(const Launch& launch, const std::string& log_path,
                             const SuperviseOptions& options);

// SIGTERM (with SIGCONT, so stopped processes see it) to `pid`, its process group and every
// descendant; SIGKILL to what is left after a grace period.
void kill_process_tree(pid_t pid);

// The process's start time in clock ticks since boot (/proc/<pid>/stat field 22); 0 if it is
// gone. With the pid, it names one process for good: pids are reused, start times are not.
long long process_start_ticks(pid_t pid);

// The process's command line, "" if it is gone.
std::string process_command_line(pid_t pid);

// The last `n` lines of a text file.
std::vector<std::string> tail_lines(const std::string& path, std::size_t n);

std::string_view name(LaunchStatus status);

}  // namespace colltune
