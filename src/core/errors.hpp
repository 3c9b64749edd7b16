#pragma once
// One exception type per library (DESIGN.md section 6); the app's main is the only catch site.

#include <stdexcept>
#include <string>

namespace colltune {

// Bad input: arguments, sizes, paths. The message is one line naming field, value and what is
// allowed; the app prints it and exits 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A measurement step did not finish within the user's --timeout.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An MPI call failed; the message holds the call, MPI's own text, rank and host.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace colltune
