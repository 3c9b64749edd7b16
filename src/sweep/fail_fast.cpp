#include "sweep/fail_fast.hpp"

#include <fmt/format.h>

#include "core/failure_reason.hpp"

namespace colltune {

FailFast::Step FailFast::observe(bool done, double seconds, const std::vector<std::string>& tail) {
  Step step;
  if (done) {
    watching_ = false;
    return step;
  }
  const std::string reason = failure_reason(tail).value_or("the launch printed nothing");
  if (reason != last_printed_) {
    step.new_reason = reason;
    last_printed_ = reason;
  }
  if (!watching_) return step;
  if (alike_ > 0 && reason != reason_) {
    watching_ = false;
    return step;
  }
  // A slow failure (a hang ended, or health's launch of every node at once, which Open MPI takes
  // seconds to abort) proves nothing either way: the count starts again after it.
  if (seconds > kFailFastSeconds) {
    alike_ = 0;
    return step;
  }
  reason_ = reason;
  step.stop = ++alike_ >= kFailFastLaunches;
  return step;
}

std::string FailFast::stop_message(const std::string& what_now) const {
  const auto fix = known_fix(reason_);
  return fmt::format(
      "{} launches in a row, before any succeeded, all failed within {:g} s with: {}\n{}: {}",
      alike_, kFailFastSeconds, reason_, what_now,
      fix ? "fix: " + *fix : std::string("no fix is known for this cause"));
}

}  // namespace colltune
