#pragma once
// What reports, compare and tune conclude from a Dataset: series of busbw against size per
// configuration, winners per size with their margins and whether the samples support them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/stats.hpp"
#include "store/results.hpp"

namespace colltune {

// Samples of every round of a point at one size, merged.
struct Cell {
  std::vector<double> samples_seconds;
  Summary summary;
  double algbw_bytes = 0;  // bytes one op moves for algbw
  double bus_factor = 1;
  double algbw_gbps = 0;  // at the median
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong;
};

// Points compared like with like: one collective, dtype, op, buffer placement and rank count.
struct PanelKey {
  std::string collective, dtype, op;
  bool in_place = false;
  int nranks = 0;
  auto operator<=>(const PanelKey&) const = default;
  std::string title() const;  // "allreduce float sum, 4 ranks, out-of-place"
};

struct Panel {
  PanelKey key;
  std::vector<std::string> point_ids;  // lines, in the dataset's point order
  std::vector<std::uint64_t> sizes;    // ascending
  std::map<std::string, std::map<std::uint64_t, Cell>> cells;  // point -> size -> cell
  std::map<std::string, std::string> skipped;                  // point -> reason
};

std::vector<Panel> build_panels(const Dataset& d);

// A difference counts only when the samples support it.
inline constexpr double kSignificanceLevel = 0.05;
inline constexpr std::size_t kMinSamplesForVerdict = 8;

struct SizeVerdict {
  std::uint64_t bytes = 0;
  std::string winner;  // point id with the lowest median time
  std::optional<std::string> runner_up;
  double margin_over_runner_up = 0;            // runner-up time / winner time - 1
  std::optional<double> margin_over_baseline;  // baseline time / winner time - 1
  std::optional<std::string> baseline;         // the winner's group's baseline point
  double p_value = 1;                          // Mann-Whitney, winner against runner-up
  bool intervals_overlap = true;
  bool significant = false;       // p < level and enough samples
  std::vector<std::string> tied;  // points not distinguishable from the winner
};

std::vector<SizeVerdict> winners(const Panel& panel, const Dataset& d);

// The baseline point of `point_id`'s group (same backend and placement), if any.
std::optional<std::string> baseline_of(const Dataset& d, const std::string& point_id);

const PointInfo* find_point(const Dataset& d, const std::string& id);

}  // namespace colltune
