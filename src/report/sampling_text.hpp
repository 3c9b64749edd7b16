#pragma once
// How a launch took its samples, in words, for the console header and every report view: a
// racing launch grows its ops per sample per size and stops a setting once it is decided, so
// "20 ops per sample, 20 samples per size" (its -n and --repetitions) would misstate it.

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/measurement.hpp"

namespace colltune {

struct SamplingPlan {
  std::optional<int> iters;         // ops per sample (-n); nullopt: not recorded (an import)
  std::optional<int> repetitions;   // samples per size, or the turn budget when raced
  std::optional<int> warmup_iters;  // -w; not used where ops per sample grow
  bool race = false;                // settings raced: a setting stops once decided
  double min_sample_seconds = 0;    // > 0: ops per sample grew per size until a sample lasted it
};

SamplingPlan sampling_plan(const RunContext& context);
// From a records file's context object; fields it lacks stay unknown (older files: not raced).
SamplingPlan sampling_plan(const nlohmann::json& context);

// E.g. "20 ops per sample, 12 samples per size, 5 warm-up ops", or for a racing launch "ops per
// sample grown per size until a sample lasts 250 us (1 warm-up op, then batches of 1, 2, 4 ...
// ops), up to 20 turns per size, raced: a setting stops once decided".
std::string sampling_text(const SamplingPlan& plan);

// The distinct sampling_texts of `contexts` (point id -> context), joined with "; ".
std::string sampling_texts(const std::map<std::string, nlohmann::json>& contexts);

}  // namespace colltune
