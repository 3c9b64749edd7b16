#pragma once
// Values of the knobs colltune knows, checked before a sweep runs anything.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// True for environment variables whose values check_knob() understands.
bool is_known_knob(std::string_view name);

// nullopt when `value` is allowed for `name` (or `name` is unknown); else what is allowed, as
// "allowed: ...", for the caller to prefix with the field and value.
std::optional<std::string> check_knob(std::string_view name, std::string_view value);

// Placement policies, Open MPI 4.1 / 5 spelling. nullopt when allowed, else "allowed: ...".
std::optional<std::string> check_map_by(std::string_view value);
std::optional<std::string> check_bind_to(std::string_view value);
std::optional<std::string> check_rank_by(std::string_view value);

// Keys a sweep's `axes` section accepts besides environment variables (UPPER_CASE names).
const std::vector<std::string>& placement_axis_keys();
bool is_env_key(const std::string& key);

// Axes that are `colltune run` flags shaping the workload of one collective (alltoallv's
// exchange pattern): compared against the baseline as knobs are, passed as flags, not env.
struct RunFlagAxis {
  std::string_view key;         // "exchange"
  std::string_view flag;        // "--exchange"
  std::string_view collective;  // the one collective it changes
};
const std::vector<RunFlagAxis>& run_flag_axes();
const RunFlagAxis* run_flag_axis(std::string_view key);  // nullptr when not one
// The axis over MPI implementations (spec `mpis:`): compared as a knob is, since "which MPI"
// is the question; it changes every collective of the MPI backend and none of NCCL's.
inline constexpr std::string_view kMpiAxis = "mpi";

// An environment knob, a run-flag axis or the `mpi` axis: what a point sets and its baseline
// leaves out.
bool is_setting_key(const std::string& key);

// A point's settings without its knobs and run-flag axes (backend, np, placement): what the
// points a baseline stands for, and a race compares, share.
std::map<std::string, std::string> group_settings(const std::map<std::string, std::string>& s);

}  // namespace colltune
