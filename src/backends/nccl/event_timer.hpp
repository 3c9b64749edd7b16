#pragma once
// The NCCL backend's sample clock: CUDA events on every GPU's stream. Internal to
// src/backends/nccl.

#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "backends/nccl/nccl_state.hpp"

namespace colltune {

// Events on every GPU's stream; a sample is the slowest GPU's time, as across ranks.
class EventTimer : public Timer {
 public:
  // `gpus` outlives the timer (the communicator's).
  explicit EventTimer(const std::vector<Gpu>& gpus);
  ~EventTimer() override;
  void start() override;
  // On the streams right behind the launched work, so host-side waiting is not timed.
  void stop() override;
  // Waits for the stop events; the slowest GPU's elapsed time.
  double seconds() override;

 private:
  const std::vector<Gpu>& gpus_;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_;
};

}  // namespace colltune
