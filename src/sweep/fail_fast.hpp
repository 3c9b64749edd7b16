#pragma once
// A sweep whose first launches all fail alike and at once would fail the same way on every
// launch left: say the cause once, with its fix, and stop instead of burning the allocation.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace colltune {

// Three launches in a row that failed alike before any succeeded, each within 2 s: no transient
// fault looks like that (a flaky node fails some launches, a slow one times out).
inline constexpr std::size_t kFailFastLaunches = 3;
inline constexpr double kFailFastSeconds = 2;

class FailFast {
 public:
  struct Step {
    std::optional<std::string> new_reason;  // a failure's cause not printed before
    bool stop = false;                      // the sweep should stop now
  };
  // After each launch, in order; `tail` is the failed launch's log tail. Driver only.
  Step observe(bool done, double seconds, const std::vector<std::string>& tail);
  // Once stop was returned: the cause, how many launches showed it, `what_now` (what the caller
  // does instead, "the sweep stops here; fix it, then resume"), and the known fix.
  std::string stop_message(const std::string& what_now) const;
  // After the last launch: the one cause every launch failed with, where none succeeded and at
  // least 2 failed, however slowly (a check whose launches all die alike proves the cause is
  // theirs, not a node's); else nullopt.
  std::optional<std::string> shared_cause() const;
  // The line saying so: how many launches, the cause, `what_now`, and the known fix.
  std::string shared_cause_message(const std::string& what_now) const;

 private:
  bool watching_ = true;  // until a launch succeeds, is slow, or fails otherwise
  std::size_t alike_ = 0;
  std::string reason_;
  std::string last_printed_;
  bool any_succeeded_ = false;
  std::size_t failed_ = 0;
  std::optional<std::string> every_failure_reason_;  // "" once two failures differ
};

}  // namespace colltune
