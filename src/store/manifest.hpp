#pragma once
// The results store of a sweep: results/<sweep-id>/ with spec.yaml (as run), manifest.json (every
// point and launch with its status) and points/<id>/round-<k>.{jsonl,log}. The manifest is
// replaced atomically after every change, so a crash leaves the last consistent state.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace colltune {

inline constexpr int kManifestSchemaVersion = 1;

struct PointEntry {
  std::string id;
  std::string label;
  std::map<std::string, std::string> settings;
  bool baseline = false;
};

struct LaunchEntry {
  std::string point_id;
  int round = 1;
  // pending running done failed timeout, or decided: not launched, the race needs it no more
  std::string status = "pending";
  std::optional<int> exit_code;
  std::optional<int> signal;
  double seconds = 0;
  std::string started_utc;
  long pid = 0;  // while running: the launcher's pid, which is also its process group
  // Its start time (/proc/<pid>/stat, clock ticks since boot), so a resume signals only its own
  // launcher, never a process that later got the same pid; 0 when unknown (older stores).
  long long pid_start_ticks = 0;
  std::vector<std::string> argv;
  std::vector<std::string> tail;      // last lines of the log when it failed or timed out
  std::vector<std::string> warnings;  // placement and health checks that failed
  std::vector<std::string> together;  // the other points measured in the same launch
  // Once done: how many records its file holds and the file's FNV-1a 64 (16 hex digits), so a
  // resume trusts the file only while it is what the launch left. 0 and "" in older stores.
  std::uint64_t records_count = 0;
  std::string records_hash;
};

struct Manifest {
  int schema_version = kManifestSchemaVersion;
  std::string sweep_id;
  std::string name;
  std::string created_utc;
  std::string colltune_version;
  std::vector<std::string> notes;
  std::vector<PointEntry> points;
  std::vector<LaunchEntry> launches;
};

nlohmann::json to_json(const Manifest& m);
// Throws ConfigError naming the file and field when it is not a manifest this version reads.
Manifest manifest_from_json(const nlohmann::json& j, const std::string& path);

// Where a launch's files live, relative to the store.
std::string launch_records_path(const std::string& point_id, int round);
std::string launch_log_path(const std::string& point_id, int round);

std::string read_file(const std::string& path);  // throws ConfigError if unreadable

}  // namespace colltune
