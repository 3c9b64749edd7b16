#include "backends/nccl/gpu_choice.hpp"

#include <fmt/format.h>

namespace colltune {

GpuChoice choose_gpus(int visible, int gpus, int first_device, int local_rank,
                      const std::string& host, const std::string& mask) {
  GpuChoice choice;
  if (gpus > visible) {
    choice.problem = fmt::format(
        "-g/--gpus: {} is more GPUs than {} shows ({}, CUDA_VISIBLE_DEVICES={}); allowed: 1 to {}",
        gpus, host, visible, mask, visible);
  } else if (first_device >= 0 && first_device + gpus > visible) {
    choice.problem =
        fmt::format("--device: {} with -g {} runs past the {} GPUs {} shows; allowed: 0 to {}",
                    first_device, gpus, visible, host, visible - gpus);
  } else if (first_device < 0 && gpus == 1 && local_rank >= visible) {
    // Two ranks on one GPU: NCCL's init fails them with "Duplicate GPU detected".
    choice.problem = fmt::format(
        "-g/--gpus: local rank {} on {} needs GPU {} of its own, but it shows {} "
        "(CUDA_VISIBLE_DEVICES={}); allowed: at most {} ranks per host with -g 1 (NCCL refuses "
        "two ranks on one GPU)",
        local_rank, host, local_rank, visible, mask, visible);
  } else if (first_device < 0 && gpus > 1 && (local_rank + 1) * gpus > visible) {
    choice.problem = fmt::format(
        "-g/--gpus: local rank {} on {} would drive GPUs {} to {}, but it shows {}; allowed: "
        "ranks per host x -g at most {}",
        local_rank, host, local_rank * gpus, (local_rank + 1) * gpus - 1, visible, visible);
  }
  if (!choice.problem.empty()) return choice;
  const int first = first_device >= 0 ? first_device : local_rank * gpus;
  for (int i = 0; i < gpus; ++i) choice.ordinals.push_back(first + i);
  return choice;
}

}  // namespace colltune
