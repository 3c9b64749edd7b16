#pragma once
// GPUs through the driver's own libraries, loaded at run time so one colltune binary works with
// and without them: the GPU-to-GPU link matrix from NVML, device copy bandwidth from the CUDA
// runtime. Where neither is present, each says why.

#include <string>
#include <vector>

#include "topo/ceilings.hpp"

namespace colltune {

struct GpuLinks {
  bool available = false;
  std::string why;                // when not available: what was looked for, what was found
  std::vector<std::string> gpus;  // "0: NVIDIA H200"
  // nvidia-smi topo -m classes: X (self), NV (NVLink), PIX, PXB, PHB, NODE, SYS.
  std::vector<std::vector<std::string>> matrix;
};

GpuLinks probe_gpu_links();

// GPUs the CUDA runtime (loaded at run time) sees; 0 without a runtime, driver or device.
int visible_gpu_count();

// Device-to-device cudaMemcpy bandwidth per visible GPU; empty (and `why` set) without CUDA.
std::vector<Ceiling> measure_device_ceilings(std::string& why, std::size_t bytes = 256ULL << 20,
                                             int repeats = 7);

}  // namespace colltune
