#pragma once
// Tuned configuration from a results store: NCCL's example tuner-plugin CSV, an Open MPI
// coll/tuned dynamic rules file, a sourceable env file; and the results as OpenMetrics text.

#include <cstdint>
#include <string>

#include "store/results.hpp"

namespace colltune {

struct TuneOptions {
  std::uint64_t min_bytes = 0;  // the size range `env` optimises over
  std::uint64_t max_bytes = UINT64_MAX;
};

// A winner replaces the default only when the samples support it: significantly ahead of the
// runner-up, or with the baseline not among the points tied with it.
std::string emit_nccl_tuner(const Dataset& d);
// colltune's own tuner plugin's file (docs/tuned-file.md): rows with the algorithm or "any",
// the protocol or "any", the channels or "any", each with its measured gain per size.
std::string emit_nccl_plugin(const Dataset& d);
std::string emit_ompi_rules(const Dataset& d);
std::string emit_env(const Dataset& d, const TuneOptions& o);
std::string emit_openmetrics(const Dataset& d);

}  // namespace colltune
