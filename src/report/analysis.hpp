#pragma once
// What reports, compare and tune conclude from a Dataset: series of busbw against size per
// configuration, winners per size with their margins and whether the measurements support them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/decision.hpp"
#include "core/race.hpp"
#include "core/stats.hpp"
#include "store/results.hpp"

namespace colltune {

// One point at one size: its samples per launch, and the merged summary.
struct Cell {
  LaunchSamples launches;               // one entry per launch (sweep round, input file)
  std::vector<std::string> launch_ids;  // parallel: which launch; equal ids = shared launch
  Summary summary;                      // of every launch's samples together
  // Geometric mean of the launch medians (seconds): what settings are ranked by, each launch one
  // vote, where the pooled median would follow the launch that took the most samples (racing
  // samples a setting a launch keeps open longer than one it eliminates).
  double center_seconds = 0;
  double algbw_bytes = 0;  // bytes one op moves for algbw
  double bus_factor = 1;
  double algbw_gbps = 0;  // at the median
  double busbw_gbps = 0;
  std::optional<std::uint64_t> wrong;
  // Racing: how its sampling ended, where every launch agrees (kNotRaced otherwise), and when.
  RaceOutcome race = RaceOutcome::kNotRaced;
  int race_turn = 0;
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
  // Points whose knobs cannot change this collective (knobs/knob_scope.hpp): replicates of
  // their baseline, left out of the panel. point -> why.
  std::map<std::string, std::string> replicates;
};

std::vector<Panel> build_panels(const Dataset& d);
// The same, moving each launch's samples out of `spent` (d.records itself, which the caller owns
// and lets go of after) instead of copying them.
std::vector<Panel> build_panels(const Dataset& d, std::vector<Record>* spent);

// The level adjusted p-values are held to, and the samples a side a within-launch test needs.
inline constexpr double kSignificanceLevel = 0.05;
inline constexpr std::size_t kMinSamplesForVerdict = 8;

// Whether cell `a` is faster than cell `b`. Points interleaved in the same launches are paired
// launch by launch (test_paired_launches); in one launch only, their samples are compared
// directly (Mann-Whitney); points from separate launches on launch medians (test_launches).
// The launch-level test of `cand` against `base` (LaunchTest's ratio: cand over base): paired
// launch by launch where both were interleaved in the same 2+ launches, else Welch on launch
// medians. Pure; any thread.
LaunchTest launch_level_test(const Cell& base, const Cell& cand);

struct PairTest {
  bool decidable = false;
  double p_faster = 1;  // one-sided, unadjusted
  std::string method;   // which of the three tests, and on how many launches
  std::string why_not;
};
PairTest test_faster(const Cell& a, const Cell& b);

struct SizeVerdict {
  std::uint64_t bytes = 0;
  std::string fastest;  // point id with the lowest median time; a winner only when significant
  std::optional<std::string> runner_up;
  double margin_over_runner_up = 0;            // runner-up time / fastest time - 1
  std::optional<double> margin_over_baseline;  // baseline time / fastest time - 1
  std::optional<std::string> baseline;         // the fastest point's group's baseline
  bool baseline_fastest = false;               // nothing beat the library's own choice
  bool baseline_eliminated = false;  // a tied or undecided race left it out: fastest named
  PairTest test;                     // fastest against its baseline (or the runner-up without one)
  double p_value = 1;  // test.p_faster adjusted over the panel's sizes (Benjamini-Hochberg)
  // The fastest beats its rival (its baseline; the runner-up where it is the baseline or has
  // none) with adjusted p < level. Only then is it named; tune also needs !baseline_fastest.
  bool significant = false;
  bool intervals_overlap = true;
  std::vector<std::string> tied;  // points not significantly slower than the fastest
  // Racing, where the points raced in one launch: the fastest's outcome (won: significant;
  // tied or undecided: not, and `tied` lists its fellows; a tie that holds the baseline keeps
  // it; one the baseline was eliminated from names the fastest, significant), and the points the
  // race eliminated, which are never the fastest.
  RaceOutcome race = RaceOutcome::kNotRaced;
  std::vector<std::string> eliminated;
};

std::vector<SizeVerdict> winners(const Panel& panel, const Dataset& d);

// The baseline point of `point_id`'s group (same backend and placement), if any.
std::optional<std::string> baseline_of(const Dataset& d, const std::string& point_id);

const PointInfo* find_point(const Dataset& d, const std::string& id);

}  // namespace colltune
