#pragma once
// What a history concludes: the change points of every series held together as one family,
// adjacent sizes that changed together as one finding, the context that changed with them, the
// between-run spread per series, and the gate on the newest run. docs/history.md.

#include <cstdint>
#include <string>
#include <vector>

#include "history/change_points.hpp"
#include "history/history_data.hpp"

namespace colltune {

struct HistoryOptions {
  ChangePointOptions change;      // change.level is the family's (over series), not one series'
  bool allow_incomplete = false;  // series too short or with an outlying newest run pass the gate
};

struct SeriesResult {
  Series series;
  Segmentation segments;
  // The gate on its newest run: "slower" (after a slower change it is part of), "wrong results"
  // (the newest run's records found wrong elements: a failure like slower), "outlier" (the
  // newest run alone is off: a change or a bad night, the next run tells), "short" (fewer runs
  // than a change needs), "not in newest" (the newest run did not measure it), "ok".
  std::string gate = "ok";
  std::string gate_note;
};

struct Finding {
  std::string kind;  // "change", "spell" or "outlier"
  std::string panel, label, collective;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::size_t sizes = 0;
  std::size_t run = 0;      // the first run after the change (the spell's first, the outlier)
  std::size_t end_run = 0;  // a spell's first run back at the earlier level
  double ratio = 1, ratio_low = 1, ratio_high = 1;  // after / before in time (>1 slower)
  double p_value = 1;                               // the smallest of its sizes'
  std::vector<std::string> context;                 // what differed from the run before
};

struct HistoryResult {
  std::vector<SeriesResult> series;
  std::vector<Finding> findings;  // changes first (newest first), then spells, then outliers
  double series_level = 0;        // the level each series' splits were held to
  int exit_code = 0;              // --gate: 0 ok, 1 slower or wrong, 3 could not tell
  bool nothing_judged = false;    // no series could be judged: exit 3 even if allowed incomplete
};

// Series, changes and the gate over `runs` (oldest first); takes their values (build_series).
HistoryResult analyse_history(std::vector<HistoryRun>& runs, const HistoryOptions& o);

}  // namespace colltune
