#pragma once
// The rank whose own samples lag the others' (records kept with --rank-samples): where a slow
// node shows first. Pure function of a loaded dataset.

#include <string>
#include <utility>
#include <vector>

#include "store/results.hpp"

namespace colltune {

// A straggler lags when its median sample is at least this much above the median rank's and it
// is the slowest rank in at least kStragglerShare of the samples (one slow sample is noise).
inline constexpr double kStragglerRatio = 1.10;
inline constexpr double kStragglerShare = 0.75;

// (point id, "rank R on HOST lags: ...") per point and rank, its worst record named; empty
// where no record holds per-rank samples.
std::vector<std::pair<std::string, std::string>> straggler_warnings(const Dataset& d);

}  // namespace colltune
