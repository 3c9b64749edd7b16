#pragma once
// Which GPUs one process drives (plain C++, unit-tested without a device).

#include <string>
#include <vector>

namespace colltune {

struct GpuChoice {
  std::vector<int> ordinals;  // CUDA device ordinals, one per communicator rank of the process
  std::string problem;        // when not empty: the one-line error, and ordinals is empty
};

// `gpus` (-g) GPUs from `first_device` (--device, -1: local_rank x gpus) among `visible`, each a
// GPU of its own (NCCL refuses two ranks on one GPU), unless `ranks_may_share` (NCCL 2.30 or
// later with NCCL_MULTI_RANK_GPU_ENABLE): then ordinals wrap modulo `visible`. `host` and `mask`
// (CUDA_VISIBLE_DEVICES) only go into the error text.
GpuChoice choose_gpus(int visible, int gpus, int first_device, int local_rank,
                      const std::string& host, const std::string& mask,
                      bool ranks_may_share = false);

// Whether NCCL lets several ranks use one GPU: NCCL_MULTI_RANK_GPU_ENABLE set, and not to 0, on
// an NCCL that reads it (2.30 and later: init.cc). `nccl_version` as ncclGetVersion gives it.
bool nccl_ranks_may_share_gpu(int nccl_version, const char* multi_rank_gpu_enable);

}  // namespace colltune
