#pragma once
// Which GPUs one process drives (plain C++, unit-tested without a device).

#include <string>
#include <vector>

namespace colltune {

struct GpuChoice {
  std::vector<int> ordinals;  // CUDA device ordinals, one per communicator rank of the process
  std::string problem;        // when not empty: the one-line error, and ordinals is empty
};

// `gpus` (-g) GPUs from `first_device` (--device, -1: local_rank x gpus) among `visible`. One GPU
// per process wraps modulo `visible` (NCCL itself refuses two ranks on one GPU); several must
// all exist. `host` and `mask` (CUDA_VISIBLE_DEVICES) only go into the error text.
GpuChoice choose_gpus(int visible, int gpus, int first_device, int local_rank,
                      const std::string& host, const std::string& mask);

}  // namespace colltune
