#pragma once
// The one JSON (de)serialiser of measurements and their context (docs/jsonl-schema.md).

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"

namespace colltune {

inline constexpr int kSchemaVersion = 1;

nlohmann::json to_json(const RunContext& context);
nlohmann::json to_json(const Measurement& m);
// context.placement back into structs; missing fields stay empty (older records).
std::vector<RankPlacement> placement_from_json(const nlohmann::json& placement);

// One JSONL record: the measurement with the full context under "context".
nlohmann::json make_record(const Measurement& m, const RunContext& context);

}  // namespace colltune
