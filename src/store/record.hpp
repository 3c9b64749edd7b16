#pragma once
// The one JSON (de)serialiser of measurements and their context (docs/jsonl-schema.md).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/measurement.hpp"
#include "core/race.hpp"

namespace colltune {

// The range a stored sample must lie in: no collective takes less than a picosecond, and none
// a million seconds (11.6 days). Outside it a record is bad input, so no report chases 5e-324.
inline constexpr double kMinSampleSeconds = 1e-12;
inline constexpr double kMaxSampleSeconds = 1e6;

inline constexpr int kSchemaVersion = 1;

nlohmann::json to_json(const RunContext& context);
nlohmann::json to_json(const Measurement& m);
// context.placement back into structs; missing fields stay empty (older records).
std::vector<RankPlacement> placement_from_json(const nlohmann::json& placement);

// context.copy_ceilings back into structs; empty where the run did not measure them.
std::vector<CopyCeiling> copy_ceilings_from_json(const nlohmann::json& context);

// One JSONL record: the measurement with the full context under "context".
nlohmann::json make_record(const Measurement& m, const RunContext& context);

// One measured (collective, dtype, op, in-place, root, size) of one launch, as read back.
struct Record {
  std::string point_id;
  int round = 1;  // the launch within its point: a sweep round, or one input file
  CollKind kind = CollKind::kAllreduce;
  std::string collective, dtype, op;  // the names of kind, dtype and op, as panels key them
  bool in_place = false;
  int root = 0;
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  int nranks = 0;
  int window = 0;
  std::string backend, timing, cache;
  std::optional<std::string> skipped;
  std::optional<std::uint64_t> wrong;
  std::vector<double> samples_seconds;
  std::vector<std::vector<double>> rank_samples_seconds;  // per process, when recorded
  // The launch's processes (its context's placement); more than nranks under --split host,
  // where each host's ranks are a communicator of their own. 0: not known.
  int processes = 0;
  double algbw_bytes = 0;  // bytes per op for algbw (window included for bw and bibw)
  double bus_factor = 1;
  Exchange exchange;     // alltoallv's pattern and seed (its algbw_bytes follow from them)
  double imbalance = 1;  // alltoallv: busiest rank's bytes / bytes; 1 otherwise
  std::map<std::string, std::string> in_process_knobs;  // --interleave: its setting
  RaceOutcome race = RaceOutcome::kNotRaced;            // how a raced setting's sampling ended
  int race_turn = 0;                                    // after which turn
};

// A context as read from a file someone may have written by hand: the value of every key named
// like an environment variable (upper case, digits, '_') with a secret word in it (KEY, TOKEN,
// ...), at any depth, becomes "<redacted>", so no report, history or compare can print it.
nlohmann::json redacted_context(nlohmann::json context);

// Reads one JSONL record and range-checks it (check_record). Throws ConfigError
// "<where>: <field>: <value> is not allowed; allowed: ..." naming the first bad field.
Record record_from_json(const nlohmann::json& j, const std::string& where);

// The range checks every reader applies: finite samples above 0, samples unless skipped,
// nranks >= 1, bytes and count below 2^63, the bus factor of the collective and rank count.
void check_record(const Record& r, const std::string& where);

// "KNOB=V KNOB2=V2": the name of an interleaved setting, from a record's in_process_knobs; the
// one key by which a shared launch's records are told apart (sweep driver and report alike).
std::string setting_name(const std::map<std::string, std::string>& in_process_knobs);

}  // namespace colltune
