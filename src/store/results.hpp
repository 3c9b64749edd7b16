#pragma once
// Reading results back: a sweep store, the JSONL of one `colltune run`, or nccl-tests' JSON (-J),
// as one Dataset that reports, compare and tune work on.

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/manifest.hpp"
#include "store/record.hpp"

namespace colltune {

// A sweep point as the manifest lists it.
using PointInfo = PointEntry;

struct LaunchInfo {
  std::string point_id;
  int round = 1;
  std::string status;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::vector<std::string> tail;
  std::vector<std::string> together;  // other points measured in the same launch (interleave)
};

struct Dataset {
  std::string source;  // the path given
  std::string kind;    // sweep, run, nccl-tests
  std::string name;
  // When it began (ISO 8601 UTC): a sweep's manifest created_utc, a run's first record's
  // start_time_utc; empty where the input does not say (history refuses it).
  std::string started_utc;
  // When each launch began (ISO 8601 UTC), as far as the input says: a sweep's launches from its
  // manifest, a run file's one launch from its context.
  std::vector<std::string> launch_starts_utc;
  std::vector<PointInfo> points;  // in sweep order; one "run" point for a single run
  std::vector<LaunchInfo> launches;
  std::vector<Record> records;                     // empty where a RecordSink took them
  std::size_t record_count = 0;                    // records read, kept here or given to a sink
  std::map<std::string, nlohmann::json> contexts;  // point id -> its first record's context
  std::vector<std::string> notes;
  std::vector<std::string> left_out;  // records skipped by --skip-bad-records, with the reason
  // (point id, warning) from the manifest's launches, or the run's own context.
  std::vector<std::pair<std::string, std::string>> warnings;
  double host_ceiling_gbps = 0;    // slowest NUMA node's memcpy bandwidth; 0 when not measured
  double device_ceiling_gbps = 0;  // slowest GPU's device-to-device copy; 0 when not measured
};

struct LoadOptions {
  // A record that fails its range checks, or repeats another, is left out with a warning in
  // Dataset::left_out instead of ending the load.
  bool skip_bad_records = false;
};

// Takes each record as it is read (point id and round final), instead of Dataset::records: a
// reader that reduces records as they come (compare, history) need not hold 10^6 of them.
using RecordSink = std::function<void(Record&&)>;

// Throws ConfigError "<path>[:line]: ..." for input it cannot read whole: a missing or torn
// file, a record that is not JSON or out of range, a duplicated record, a schema it does not know.
// With `sink`, the records go there and Dataset::records stays empty.
Dataset load_dataset(const std::string& path, const LoadOptions& o = {},
                     const RecordSink& sink = {});

// Several inputs read as one side of a comparison: each file's launches stay launches of their
// own (rounds renumbered after the previous input's), points matched by id. `sink` as above.
Dataset load_datasets(const std::vector<std::string>& paths, const LoadOptions& o = {},
                      const RecordSink& sink = {});

}  // namespace colltune
