#include "backends/nccl/event_timer.hpp"

#include <algorithm>

namespace colltune {

EventTimer::EventTimer(const std::vector<Gpu>& gpus) : gpus_(gpus) {
  for (const Gpu& gpu : gpus_) {
    cudaSetDevice(gpu.ordinal);
    cudaEvent_t start = nullptr, stop = nullptr;
    COLLTUNE_CUDA_CHECK(cudaEventCreate(&start));
    COLLTUNE_CUDA_CHECK(cudaEventCreate(&stop));
    events_.emplace_back(start, stop);
  }
}

EventTimer::~EventTimer() {
  for (auto& [start, stop] : events_) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
}

void EventTimer::start() {
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    COLLTUNE_CUDA_CHECK(cudaEventRecord(events_[i].first, gpus_[i].stream));
  }
}

void EventTimer::stop() {
  for (std::size_t i = 0; i < gpus_.size(); ++i) {
    COLLTUNE_CUDA_CHECK(cudaEventRecord(events_[i].second, gpus_[i].stream));
  }
}

double EventTimer::seconds() {
  float slowest_ms = 0;
  for (auto& [start, stop] : events_) {
    COLLTUNE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    COLLTUNE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    slowest_ms = std::max(slowest_ms, ms);
  }
  return slowest_ms / 1e3;
}

}  // namespace colltune
