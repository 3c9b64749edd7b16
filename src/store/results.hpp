#pragma once
// Reading results back: a sweep store, the JSONL of one `colltune run`, or nccl-tests' JSON (-J),
// as one Dataset that reports, compare and tune work on.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/manifest.hpp"

namespace colltune {

// One measured (collective, dtype, op, in-place, size) of one launch.
struct Record {
  std::string point_id;
  int round = 1;
  std::string collective, dtype, op;
  bool in_place = false;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  int nranks = 0;
  int window = 0;
  std::string backend, timing, cache;
  std::optional<std::string> skipped;
  std::optional<std::uint64_t> wrong;
  std::vector<double> samples_seconds;
  double algbw_bytes = 0;  // bytes per op for algbw (window included for bw and bibw)
  double bus_factor = 1;
  std::map<std::string, std::string> in_process_knobs;  // --interleave: its setting
};

// A sweep point as the manifest lists it.
using PointInfo = PointEntry;

struct LaunchInfo {
  std::string point_id;
  int round = 1;
  std::string status;
  std::optional<int> exit_code;
  std::optional<int> signal;
  std::vector<std::string> tail;
  std::size_t together = 0;  // other points measured in the same launch (interleave)
};

struct Dataset {
  std::string source;  // the path given
  std::string kind;    // sweep, run, nccl-tests
  std::string name;
  std::vector<PointInfo> points;  // in sweep order; one "run" point for a single run
  std::vector<LaunchInfo> launches;
  std::vector<Record> records;
  std::map<std::string, nlohmann::json> contexts;  // point id -> its first record's context
  std::vector<std::string> notes;
  // (point id, warning) from the manifest's launches, or the run's own context.
  std::vector<std::pair<std::string, std::string>> warnings;
  double host_ceiling_gbps = 0;    // slowest NUMA node's memcpy bandwidth; 0 when not measured
  double device_ceiling_gbps = 0;  // slowest GPU's device-to-device copy; 0 when not measured
};

// Throws ConfigError "<path>[:line]: ..." for input it cannot read whole: a missing or torn
// file, a record that is not JSON, a schema it does not know.
Dataset load_dataset(const std::string& path);

}  // namespace colltune
