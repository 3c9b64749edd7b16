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

// A CUDA runtime call failed; the message holds the call and CUDA's own text.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An NCCL call failed or NCCL reported an asynchronous error; the message holds the call (or
// the GPU), NCCL's error string and its last-error text.
class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace colltune
