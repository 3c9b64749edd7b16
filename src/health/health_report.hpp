#pragma once
// What colltune health says: the answer first, then the node and pair tables; its JSON; the
// drain list. Pure functions of the result.

#include <nlohmann/json.hpp>
#include <string>

#include "health/health_run.hpp"

namespace colltune {

// Exit codes of `colltune health`.
inline constexpr int kHealthAllOk = 0;
inline constexpr int kHealthSomeBad = 1;
inline constexpr int kHealthCouldNotCheck = 3;

int health_exit_code(const HealthResult& r);

// The console text: the answer's lines, then the stages, then the tables.
std::string health_text(const HealthResult& r, const HealthRule& rule);

nlohmann::json health_json(const HealthResult& r, const HealthRule& rule);

// One line per slow, failed or unreachable node: `nodename=N state=drain reason="..."`, the
// arguments of `scontrol update` (colltune never runs it).
std::string drain_lines(const HealthResult& r);

}  // namespace colltune
