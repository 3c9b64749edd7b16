#include "sweep/fail_fast.hpp"

#include <fmt/format.h>

#include "core/failure_reason.hpp"

namespace colltune {

FailFast::Step FailFast::observe(bool done, double seconds, const std::vector<std::string>& tail) {
  Step step;
  if (done) {
    watching_ = false;
    any_succeeded_ = true;
    return step;
  }
  const std::string reason = failure_reason(tail).value_or("the launch printed nothing");
  ++failed_;
  if (!every_failure_reason_) every_failure_reason_ = reason;
  if (*every_failure_reason_ != reason) every_failure_reason_ = "";
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

namespace {
std::string fix_line(const std::string& reason) {
  const auto fix = known_fix(reason);
  return fix ? "fix: " + *fix : std::string("no fix is known for this cause");
}
}  // namespace

std::string FailFast::stop_message(const std::string& what_now) const {
  return fmt::format(
      "{} launches in a row, before any succeeded, all failed within {:g} s with: {}\n{}: {}",
      alike_, kFailFastSeconds, reason_, what_now, fix_line(reason_));
}

std::optional<std::string> FailFast::shared_cause() const {
  if (any_succeeded_ || failed_ < 2 || !every_failure_reason_ || every_failure_reason_->empty())
    return std::nullopt;
  return every_failure_reason_;
}

std::string FailFast::shared_cause_message(const std::string& what_now) const {
  const std::string reason = shared_cause().value_or("");
  return fmt::format("all {} launches failed, none succeeded, every one with: {}\n{}: {}", failed_,
                     reason, what_now, fix_line(reason));
}

}  // namespace colltune
