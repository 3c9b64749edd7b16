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

#include "core/errors.hpp"

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
                        {"together", l.together}});
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

Manifest manifest_from_json(const nlohmann::json& j, const std::string& path) {
  Manifest m;
  try {
    m.schema_version = j.at("schema_version").get<int>();
    if (m.schema_version != kManifestSchemaVersion) {
      throw ConfigError(fmt::format("{}: schema_version: {} is not readable; allowed: {}", path,
                                    m.schema_version, kManifestSchemaVersion));
    }
    m.sweep_id = j.at("sweep_id").get<std::string>();
    m.name = j.at("name").get<std::string>();
    m.created_utc = j.at("created_utc").get<std::string>();
    m.colltune_version = j.at("colltune_version").get<std::string>();
    m.notes = j.at("notes").get<std::vector<std::string>>();
    for (const auto& p : j.at("points")) {
      m.points.push_back({p.at("id").get<std::string>(), p.at("label").get<std::string>(),
                          p.at("settings").get<std::map<std::string, std::string>>(),
                          p.at("baseline").get<bool>()});
    }
    for (const auto& l : j.at("launches")) {
      LaunchEntry e;
      e.point_id = l.at("point").get<std::string>();
      e.round = l.at("round").get<int>();
      e.status = l.at("status").get<std::string>();
      if (!l.at("exit_code").is_null()) e.exit_code = l.at("exit_code").get<int>();
      if (!l.at("signal").is_null()) e.signal = l.at("signal").get<int>();
      e.seconds = l.at("seconds").get<double>();
      e.started_utc = l.at("started_utc").get<std::string>();
      e.pid = l.at("pid").get<long>();
      e.pid_start_ticks = l.value("pid_start_ticks", 0LL);
      e.argv = l.at("argv").get<std::vector<std::string>>();
      e.tail = l.at("tail").get<std::vector<std::string>>();
      e.warnings = l.value("warnings", std::vector<std::string>{});
      e.together = l.value("together", std::vector<std::string>{});
      m.launches.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not a colltune sweep manifest ({})", path, e.what()));
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
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  // A directory opens as a stream and reads as empty: say what it is instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(fmt::format("{}: is a directory; allowed: a file", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace colltune
