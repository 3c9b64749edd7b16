#include "core/measurement.hpp"

namespace colltune {

std::string_view name(TimingMode mode) { return mode == TimingMode::kBatch ? "batch" : "per-op"; }
std::string_view name(TimeSpan span) {
  return span == TimeSpan::kCompletion ? "completion" : "launch";
}
std::string_view name(CacheMode mode) { return mode == CacheMode::kWarm ? "warm" : "cold"; }
std::string_view name(RankReduction how) {
  constexpr std::string_view kNames[] = {"rank0", "mean", "min", "max"};
  return kNames[static_cast<int>(how)];
}

}  // namespace colltune
