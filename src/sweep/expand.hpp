#pragma once
// Spec -> points: the product of the axes, cut by include/exclude, with a baseline per group.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sweep/spec.hpp"

namespace colltune {

using Settings = std::map<std::string, std::string>;  // axis -> value; unset axes are absent

// For hashed lookups of settings, so expansion and grouping stay linear in the points.
struct SettingsHash {
  std::size_t operator()(const Settings& settings) const;
};

struct Point {
  std::string id;     // from the shown settings alone, so it is the same in every sweep
  std::string label;  // "backend=mpi np=4 bind_to=core OMPI_MCA_...=3", secrets redacted
  Settings settings;  // as given: what the launch sets
  bool baseline = false;
  Settings shown;  // what the driver writes and prints: secret values redacted
};

// Deterministic: the first axis varies slowest. Include rules keep only points matching one of
// them, exclude rules drop matching points; then every group of points that share backend and
// placement gets the baseline (spec.baseline's environment, other environment axes unset),
// added in front of the group when the product lacks it. A baseline rule that names placement
// or backend marks the points matching it instead.
// Refuses (ConfigError naming the count) a product of axes above `max_points` before building
// any point; linear in the points after that (hashed lookups).
inline constexpr std::uint64_t kDefaultMaxPoints = 10000;
std::vector<Point> expand(const SweepSpec& spec, std::uint64_t max_points = kDefaultMaxPoints);

// The number of combinations of the axes' values (saturating at UINT64_MAX).
std::uint64_t product_size(const SweepSpec& spec);

// 16 hex digits of a 64-bit FNV-1a hash over "key=value\n" in key order.
std::string point_id(const Settings& settings);

bool matches(const Rule& rule, const Settings& settings);

}  // namespace colltune
