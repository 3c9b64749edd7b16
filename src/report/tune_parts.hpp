#pragma once
// What tune's emitters share (report/tune.cpp defines them): a point's settings, its host
// count, size ranges and NCCL knob values as tuner names. Internal to report/.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/analysis.hpp"
#include "store/results.hpp"

namespace colltune::tune_parts {

// The value `point` sets for `key` (an environment name, "backend"...), or nullopt.
std::optional<std::string> setting(const Dataset& d, const std::string& point,
                                   const std::string& key);
// The panel cut to its baselines (the library's own choice) and the points setting `knob`, the
// only ones that say anything about the algorithm it forces; nullopt when no point sets it.
std::optional<Panel> forcing_candidates(const Dataset& d, const Panel& panel,
                                        const std::string& knob);
// How many hosts `point`'s launches ran on; -1 when its context does not say.
int hosts_of(const Dataset& d, const std::string& point);

// Adjacent sizes with the same choice become one range; ranges cover measured sizes only.
struct Range {
  std::uint64_t min_bytes, max_bytes;
  std::string choice;
};
std::vector<Range> ranges(const std::vector<std::pair<std::uint64_t, std::string>>& choices);

// An Intel MPI I_MPI_ADJUST_<COLL> value by size ("8:0-65535;2"): where a preset other than
// `overall` (the env file's one value) beat Intel's own choice significantly in [min, max]
// bytes, that preset over its range, `overall` elsewhere; with the comment line saying so.
// nullopt when no other preset won anywhere, or for a per-peer collective (alltoall,
// allgather, reduce_scatter: one preset), whose size Intel's reference does not define.
struct IntelRangedLine {
  std::string value, comment;
};
std::optional<IntelRangedLine> intel_ranged_line(const Dataset& d, const std::string& knob,
                                                 const std::string& overall,
                                                 std::uint64_t min_bytes, std::uint64_t max_bytes);

// colltune's collective names to NCCL's example plugin's.
const std::map<std::string, std::string>& nccl_tuner_collectives();
// One NCCL_ALGO / NCCL_PROTO value as the tuner's name ("nvls_tree", "ll128"); "" for an unset
// value, a list or an exclusion (not one algorithm).
std::string tuner_algorithm(const std::optional<std::string>& v);
std::string tuner_protocol(const std::optional<std::string>& v);
// The channel count the point fixed (NCCL_MAX_CTAS ...), or "-1".
std::string tuner_channels(const Dataset& d, const std::string& point);

}  // namespace colltune::tune_parts
