#pragma once
// The runs of a history in time order and their series: one value a run for every measured
// (point, backend, collective, dtype, op, buffers, root, size, ranks, placement shape).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "store/results.hpp"

namespace colltune {

// What a series is of. The placement shape (ranks per host, in host order) is part of it; the
// host names and bindings are context, so a move to other nodes shows as a change.
struct SeriesKey {
  std::string point_id, backend, collective, dtype, op;
  bool in_place = false;
  int root = 0;
  int nranks = 0;
  std::string shape;  // "2 hosts x 2 ranks", "1 host x 2 ranks", "2+1 ranks on 2 hosts"
  std::uint64_t bytes = 0;
  auto operator<=>(const SeriesKey&) const = default;
  // Everything but the size: the panel adjacent sizes are grouped in.
  std::string panel() const;
};

struct RunValue {
  std::size_t run = 0;     // index into the runs
  double log_seconds = 0;  // mean of the logs of its launch medians (geometric mean)
  std::size_t launches = 0;
  std::uint64_t wrong = 0;  // wrong elements its records found (any: the run failed here)
  // 95% interval of the geometric mean from its launches (t on their logs); unset with one
  // launch or no raw samples (imported logs).
  std::optional<double> low_log, high_log;
};

// One run: its inputs' context (Dataset::records stays empty: the records were reduced as they
// were read) and a value for each series it measured.
struct HistoryRun {
  std::string source;       // the store or file as found
  std::string started_utc;  // ISO 8601 UTC
  Dataset data;
  std::vector<std::pair<SeriesKey, RunValue>> values;  // by key; RunValue::run unset here
};

// Each path is a store, a run file, or a directory of them (one level). Every input is one run.
// Throws ConfigError for an unreadable input, or a run without a start time or with one in the
// future. Oldest first (to the millisecond; ties in the order given); a run given twice (the same
// records) counts once, with a warning.
std::vector<HistoryRun> load_history(const std::vector<std::string>& paths,
                                     const LoadOptions& o = {});

struct Series {
  SeriesKey key;
  std::string label;             // the point's label in its newest run
  std::vector<RunValue> values;  // oldest first; runs that did not measure it are absent
};

// The runs' values gathered by series, in key order, each RunValue::run its run's index. Takes
// them out of the runs (HistoryRun::values is empty after).
std::vector<Series> build_series(std::vector<HistoryRun>& runs);

// What the point ran under in one run, flattened for diffs: "library mpi", "env OMPI_MCA_btl",
// "hosts", "binding", "colltune", ... -> value. Secrets never reach records (redacted there).
std::map<std::string, std::string> run_context(const HistoryRun& run, const std::string& point_id);

// The keys whose values differ (absent counts as empty).
std::vector<std::string> changed_keys(const std::map<std::string, std::string>& before,
                                      const std::map<std::string, std::string>& after);

// "nccl 2.27.7 -> 2.28.9", "env OMPI_MCA_btl (unset) -> self,tcp": one per differing key not in
// `ignore`.
std::vector<std::string> context_changes(const std::map<std::string, std::string>& before,
                                         const std::map<std::string, std::string>& after,
                                         const std::set<std::string>& ignore = {});

}  // namespace colltune
