#include "core/measurement.hpp"

namespace colltune {

std::string_view name(TimingMode mode) { return mode == TimingMode::kBatch ? "batch" : "per-op"; }
std::string_view name(CacheMode mode) { return mode == CacheMode::kWarm ? "warm" : "cold"; }

}  // namespace colltune
