#pragma once
// GPU memory for a backend that is not GPU-native: the MPI backend with --buffers device puts its
// buffers on the rank's GPU and validates them there. Implemented where CUDA is built in
// (backends/nccl/device_memory.cpp, which reuses the NCCL backend's kernels).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "comm/communicator.hpp"
#include "core/collective.hpp"
#include "core/pattern.hpp"

namespace colltune {

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  virtual DeviceInfo device() const = 0;  // the GPU the buffers live on
  // `bytes` of zeroed device memory, owned by the caller until release().
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* memory) noexcept = 0;
  // fill_for / count_wrong_for on device buffers, with the same blocks, done when they return.
  virtual void fill(const Collective& c, int nranks, int rank, const Pattern& p, void* send,
                    void* recv) = 0;
  virtual std::uint64_t count_wrong(const Collective& c, int nranks, int rank, const Pattern& p,
                                    const void* out) = 0;
  virtual void flip_byte(void* at) = 0;  // --test-corrupt
};

// Opens the rank's GPU (local rank modulo the visible ones, or --device). Collective: throws
// ConfigError on every rank alike when any rank has no GPU. Empty in a build without CUDA.
using DeviceMemoryOpener = std::function<std::unique_ptr<DeviceMemory>()>;

}  // namespace colltune
