// Which GPUs a process drives and whether they can take a communicator: the NCCL backend's
// device choice, apart from the communicator itself.

#include <algorithm>
#include <cstdlib>

#include "backends/nccl/gpu_choice.hpp"
#include "backends/nccl/nccl_state.hpp"
#include "backends/registry.hpp"

namespace colltune {
namespace {

// colltune-nompi shares this file with colltune; only the binary's backend list tells them apart.
bool mpi_backend_built() {
  const std::vector<std::string> names = built_backends();
  return std::find(names.begin(), names.end(), "mpi") != names.end();
}

std::string visible_devices_text() {
  const char* mask = std::getenv("CUDA_VISIBLE_DEVICES");
  return mask ? mask : "unset";
}

}  // namespace

std::vector<int> choose_devices(const MpiWorld& world, const BackendOptions& options,
                                std::string_view wants) {
  int visible = 0;
  const cudaError_t err = cudaGetDeviceCount(&visible);
  const bool usable = err == cudaSuccess && visible > 0;
  if (world.sum_over_ranks(usable ? 0 : 1) > 0) {
    throw ConfigError(fmt::format(
        "{}: no CUDA device on {} (looked with cudaGetDeviceCount: {}; "
        "CUDA_VISIBLE_DEVICES={}); allowed: a host with a GPU{}",
        wants, usable ? "another rank's host" : world.host(),
        err == cudaSuccess ? fmt::format("{} devices", visible) : cudaGetErrorString(err),
        visible_devices_text(),
        wants == "--buffers device" ? ", or --buffers host"
        : mpi_backend_built()       ? ", or --backend mpi"
                                    : ""));
  }
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  // MPI on device buffers (--buffers device) has no such rule, but keeps one GPU per rank too.
  const bool share =
      wants == "--backend nccl" &&
      nccl_ranks_may_share_gpu(nccl_version, std::getenv("NCCL_MULTI_RANK_GPU_ENABLE"));
  GpuChoice choice = choose_gpus(visible, std::max(options.gpus, 1), options.device,
                                 world.local_rank(), world.host(), visible_devices_text(), share);
  if (world.sum_over_ranks(choice.problem.empty() ? 0 : 1) > 0) {
    throw ConfigError(choice.problem.empty() ? "--device/-g: another rank has too few GPUs for them"
                                             : choice.problem);
  }
  return choice.ordinals;
}

DeviceInfo device_info(int ordinal, int* compute_major) {
  cudaDeviceProp prop{};
  COLLTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  char bus[32] = "";
  COLLTUNE_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), ordinal));
  if (compute_major != nullptr) *compute_major = prop.major;
  return {bus, fmt::format("{}, {} MiB, sm_{}{}", prop.name, prop.totalGlobalMem >> 20, prop.major,
                           prop.minor)};
}

// NCCL sizes a communicator's buffers at init (hundreds of MiB, more with many channels); with
// less free than this an init fails deep inside NCCL or leaves no room for the measured buffers.
// --interleave keeps one communicator per setting alive at once, so 64 of them can run out.
constexpr std::size_t kMinFreeBytesPerInit = 1ULL << 30;

void require_free_memory(const MpiWorld& world, const std::vector<int>& ordinals,
                         std::size_t interleaved_knobs) {
  std::string problem;
  for (int ordinal : ordinals) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(ordinal) != cudaSuccess ||
        cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      continue;  // the init reports it
    }
    if (free_bytes < kMinFreeBytesPerInit && problem.empty()) {
      problem = fmt::format(
          "--backend nccl: GPU {} on {} has {} MiB of {} MiB free before a communicator's init{}; "
          "allowed: at least {} MiB free per communicator (fewer --interleave settings, or "
          "another process's memory freed)",
          ordinal, world.host(), free_bytes >> 20, total_bytes >> 20,
          interleaved_knobs > 0 ? " (--interleave holds one communicator per setting)" : "",
          kMinFreeBytesPerInit >> 20);
    }
  }
  if (world.sum_over_ranks(problem.empty() ? 0 : 1) > 0) {
    throw ConfigError(problem.empty() ? "--backend nccl: another rank's GPU has too little free "
                                        "memory for a communicator (its line says why)"
                                      : problem);
  }
}

}  // namespace colltune
