#include "store/manifest.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/regular_file.hpp"

namespace colltune {

nlohmann::json to_json(const Manifest& m) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : m.points) {
    points.push_back(
        {{"id", p.id}, {"label", p.label}, {"settings", p.settings}, {"baseline", p.baseline}});
  }
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& l : m.launches) {
    launches.push_back({{"point", l.point_id},
                        {"round", l.round},
                        {"status", l.status},
                        {"exit_code", l.exit_code ? nlohmann::json(*l.exit_code) : nullptr},
                        {"signal", l.signal ? nlohmann::json(*l.signal) : nullptr},
                        {"seconds", l.seconds},
                        {"started_utc", l.started_utc},
                        {"pid", l.pid},
                        {"pid_start_ticks", l.pid_start_ticks},
                        {"records", launch_records_path(l.point_id, l.round)},
                        {"log", launch_log_path(l.point_id, l.round)},
                        {"argv", l.argv},
                        {"tail", l.tail},
                        {"warnings", l.warnings},
                        {"together", l.together},
                        {"records_count", l.records_count},
                        {"records_hash", l.records_hash}});
  }
  return {{"schema_version", m.schema_version},
          {"sweep_id", m.sweep_id},
          {"name", m.name},
          {"created_utc", m.created_utc},
          {"colltune_version", m.colltune_version},
          {"notes", m.notes},
          {"points", points},
          {"launches", launches}};
}

namespace {

// Reads the manifest's fields by name, so that a wrong type says which field it was: "FILE:
// launches[3].round: \"x\" is not allowed; allowed: an integer", not the JSON library's code.
class FieldReader {
 public:
  explicit FieldReader(const std::string& path) : path_(path) {}

  const nlohmann::json& at(const nlohmann::json& obj, const std::string& where,
                           const char* key) const {
    if (!obj.is_object()) fail(where, obj, "an object");
    const auto it = obj.find(key);
    if (it == obj.end()) {
      throw ConfigError(
          fmt::format("{}: {}{}: missing; allowed: a manifest colltune wrote", path_, where, key));
    }
    return *it;
  }
  [[noreturn]] void fail(const std::string& field, const nlohmann::json& value,
                         const char* allowed) const {
    std::string shown = value.dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    throw ConfigError(
        fmt::format("{}: {}: {} is not allowed; allowed: {}", path_, field, shown, allowed));
  }
  std::string text(const nlohmann::json& obj, const std::string& where, const char* key) const {
    const auto& v = at(obj, where, key);
    if (!v.is_string()) fail(where + key, v, "a string");
    return v.get<std::string>();
  }
  long long integer(const nlohmann::json& obj, const std::string& where, const char* key,
                    bool nullable = false) const {
    const auto& v = at(obj, where, key);
    if (nullable && v.is_null()) return 0;
    if (!v.is_number_integer())
      fail(where + key, v, nullable ? "an integer or null" : "an integer");
    return v.get<long long>();
  }
  double number(const nlohmann::json& obj, const std::string& where, const char* key) const {
    const auto& v = at(obj, where, key);
    if (!v.is_number()) fail(where + key, v, "a number");
    return v.get<double>();
  }
  std::vector<std::string> strings(const nlohmann::json& obj, const std::string& where,
                                   const char* key, bool optional = false) const {
    if (optional && (!obj.is_object() || !obj.contains(key))) return {};
    const auto& v = at(obj, where, key);
    std::vector<std::string> out;
    if (!v.is_array()) fail(where + key, v, "a list of strings");
    for (const auto& item : v) {
      if (!item.is_string()) fail(where + key, v, "a list of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }
  const nlohmann::json& list(const nlohmann::json& obj, const char* key) const {
    const auto& v = at(obj, "", key);
    if (!v.is_array()) fail(key, v, "a list");
    return v;
  }

 private:
  const std::string& path_;
};

}  // namespace

Manifest manifest_from_json(const nlohmann::json& j, const std::string& path) {
  if (j.is_discarded()) {
    throw ConfigError(fmt::format(
        "{}: not JSON (truncated or damaged); allowed: the manifest.json colltune wrote", path));
  }
  const FieldReader f(path);
  Manifest m;
  m.schema_version = static_cast<int>(f.integer(j, "", "schema_version"));
  if (m.schema_version != kManifestSchemaVersion) {
    throw ConfigError(fmt::format("{}: schema_version: {} is not readable; allowed: {}", path,
                                  m.schema_version, kManifestSchemaVersion));
  }
  m.sweep_id = f.text(j, "", "sweep_id");
  m.name = f.text(j, "", "name");
  m.created_utc = f.text(j, "", "created_utc");
  m.colltune_version = f.text(j, "", "colltune_version");
  m.notes = f.strings(j, "", "notes");
  const auto& points = f.list(j, "points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string where = fmt::format("points[{}].", i);
    PointEntry p;
    p.id = f.text(points[i], where, "id");
    p.label = f.text(points[i], where, "label");
    const auto& settings = f.at(points[i], where, "settings");
    if (!settings.is_object()) f.fail(where + "settings", settings, "an object of strings");
    for (const auto& [key, value] : settings.items()) {
      if (!value.is_string()) f.fail(where + "settings." + key, value, "a string");
      // A hand-written manifest's secret stays out of every report: redacted as it is read.
      const std::string text = value.get<std::string>();
      p.settings[key] = is_secret_variable(key) && !is_redacted(text) ? kRedacted : text;
    }
    const auto& baseline = f.at(points[i], where, "baseline");
    if (!baseline.is_boolean()) f.fail(where + "baseline", baseline, "true or false");
    p.baseline = baseline.get<bool>();
    m.points.push_back(std::move(p));
  }
  const auto& launches = f.list(j, "launches");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const auto& l = launches[i];
    const std::string where = fmt::format("launches[{}].", i);
    LaunchEntry e;
    e.point_id = f.text(l, where, "point");
    e.round = static_cast<int>(f.integer(l, where, "round"));
    e.status = f.text(l, where, "status");
    if (!f.at(l, where, "exit_code").is_null())
      e.exit_code = static_cast<int>(f.integer(l, where, "exit_code"));
    if (!f.at(l, where, "signal").is_null())
      e.signal = static_cast<int>(f.integer(l, where, "signal"));
    e.seconds = f.number(l, where, "seconds");
    e.started_utc = f.text(l, where, "started_utc");
    e.pid = static_cast<long>(f.integer(l, where, "pid"));
    if (l.contains("pid_start_ticks")) e.pid_start_ticks = f.integer(l, where, "pid_start_ticks");
    e.argv = redact_words(f.strings(l, where, "argv"));
    e.tail = f.strings(l, where, "tail");
    e.warnings = f.strings(l, where, "warnings", true);
    e.together = f.strings(l, where, "together", true);
    if (l.contains("records_count")) {
      const long long count = f.integer(l, where, "records_count");
      if (count < 0) f.fail(where + "records_count", l["records_count"], "0 or more");
      e.records_count = static_cast<std::uint64_t>(count);
    }
    if (l.contains("records_hash")) e.records_hash = f.text(l, where, "records_hash");
    m.launches.push_back(std::move(e));
  }
  return m;
}

std::string launch_records_path(const std::string& point_id, int round) {
  return fmt::format("points/{}/round-{}.jsonl", point_id, round);
}

std::string launch_log_path(const std::string& point_id, int round) {
  return fmt::format("points/{}/round-{}.log", point_id, round);
}

std::string read_file(const std::string& path) {
  std::string text, problem;
  if (!read_regular_file(path, kMaxInputFileBytes, text, problem))
    throw ConfigError(fmt::format("{}: {}", path, problem));
  return text;
}

}  // namespace colltune
