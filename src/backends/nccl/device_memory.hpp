#pragma once
// DeviceMemory on CUDA: the MPI backend's --buffers device buffers, filled and checked with the
// NCCL backend's kernels (backends/nccl/device_validation).

#include <memory>

#include "comm/device_memory.hpp"
#include "comm/mpi_world.hpp"

namespace colltune {

// The rank's GPU as nccl would pick it (--device, else local rank modulo the visible GPUs).
// Collective; throws ConfigError on every rank alike when a rank has none.
std::unique_ptr<DeviceMemory> open_device_memory(const MpiWorld& world,
                                                 const BackendOptions& options);

}  // namespace colltune
