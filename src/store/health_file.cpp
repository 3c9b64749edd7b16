#include "store/health_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"

namespace colltune {
namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& field,
                         const std::string& allowed) {
  throw ConfigError(fmt::format("{}: {}: not readable; allowed: {}", path, field, allowed));
}

// A finite number, or nothing where health could not judge (null).
std::optional<double> number(const nlohmann::json& j, const char* key, const std::string& path,
                             const std::string& field) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
    refuse(path, field + "." + key, "a finite number or null");
  return j[key].get<double>();
}

}  // namespace

HealthFile read_health_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw ConfigError(
        fmt::format("{}: cannot be read; allowed: colltune health's health.json", path));
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("schema_version", 0) != 1)
    refuse(path, "schema_version", "colltune health's health.json, schema_version 1");
  HealthFile out;
  if (!j.contains("exit_code") || !j["exit_code"].is_number_integer())
    refuse(path, "exit_code", "an integer");
  out.exit_code = j["exit_code"].get<int>();
  if (!j.contains("nodes") || !j["nodes"].is_array()) refuse(path, "nodes", "a list of nodes");
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    const nlohmann::json& n = j["nodes"][i];
    const std::string field = fmt::format("nodes[{}]", i);
    if (!n.is_object() || !n.contains("node") || !n["node"].is_string() || !n.contains("verdict") ||
        !n["verdict"].is_string())
      refuse(path, field, "an object with node and verdict");
    HealthNodeFigure f;
    f.node = n["node"].get<std::string>();
    f.verdict = n["verdict"].get<std::string>();
    f.named = f.verdict == "slow" || f.verdict == "failed" || f.verdict == "unreachable";
    if (n.contains("evidence") && n["evidence"].is_object()) {
      f.ratio = number(n["evidence"], "ratio", path, field + ".evidence");
      f.median_seconds = number(n["evidence"], "median_seconds", path, field + ".evidence");
    }
    if (n.contains("network_path")) {
      if (!n["network_path"].is_boolean()) refuse(path, field + ".network_path", "true or false");
      f.network_path = n["network_path"].get<bool>();
    }
    out.nodes.push_back(std::move(f));
  }
  const nlohmann::json uplinks = j.value("uplinks", nlohmann::json::array());
  for (std::size_t i = 0; i < uplinks.size(); ++i) {
    const nlohmann::json& u = uplinks[i];
    if (!u.is_object() || !u.contains("switch") || !u["switch"].is_string() ||
        !u.contains("slow_crossing") || !u["slow_crossing"].is_number_integer())
      refuse(path, fmt::format("uplinks[{}]", i), "an object with switch and slow_crossing");
    out.uplinks.push_back({u["switch"].get<std::string>(), u["slow_crossing"].get<int>()});
  }
  return out;
}

}  // namespace colltune
