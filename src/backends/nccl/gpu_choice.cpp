#include "backends/nccl/gpu_choice.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace colltune {

bool nccl_ranks_may_share_gpu(int nccl_version, const char* multi_rank_gpu_enable) {
  // NCCL_VERSION(2, 30, 0), spelled out: this file builds without nccl.h.
  constexpr int kFirstSharingNccl = 2 * 10000 + 30 * 100;
  // Read as NCCL reads its parameters (misc/param.cc: strtoll): "yes" or "true" is 0, off.
  return nccl_version >= kFirstSharingNccl && multi_rank_gpu_enable != nullptr &&
         std::strtoll(multi_rank_gpu_enable, nullptr, 0) != 0;
}

GpuChoice choose_gpus(int visible, int gpus, int first_device, int local_rank,
                      const std::string& host, const std::string& mask, bool ranks_may_share) {
  GpuChoice choice;
  if (ranks_may_share && visible > 0 && first_device < visible) {
    const int first = first_device >= 0 ? first_device : local_rank * gpus;
    for (int i = 0; i < gpus; ++i) choice.ordinals.push_back((first + i) % visible);
    return choice;
  }
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
        "two ranks on one GPU before 2.30, and from 2.30 without NCCL_MULTI_RANK_GPU_ENABLE=1)",
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
