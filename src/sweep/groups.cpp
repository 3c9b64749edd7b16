#include "sweep/groups.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "knobs/interleave.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

// The point's value of an interleaved knob as `colltune run` records it.
std::string knob_value(const Point& point, const std::string& key) {
  const auto it = point.settings.find(key);
  if (it == point.settings.end()) return "default";
  return canonical_in_process_value(key, it->second).value_or(it->second);
}

// Open MPI parameters switch on the MPI backend only, NCCL_ALGO / NCCL_PROTO on NCCL only.
bool interleavable(const SweepSpec& spec, const Point& point) {
  const auto backend = point.settings.find("backend");
  const std::string name = backend == point.settings.end() ? "mpi" : backend->second;
  return name == (is_nccl_in_process_knob(spec.interleave.front()) ? "nccl" : "mpi");
}

}  // namespace

std::vector<std::vector<std::size_t>> launch_groups(const SweepSpec& spec,
                                                    const std::vector<Point>& points) {
  std::vector<std::vector<std::size_t>> groups;
  // Each group's settings besides the interleaved knobs, to its index: one lookup per point.
  std::unordered_map<Settings, std::size_t, SettingsHash> group_of;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (spec.interleave.empty() || !interleavable(spec, points[i])) {
      groups.push_back({i});
      continue;
    }
    Settings rest = points[i].settings;
    for (const std::string& key : spec.interleave) rest.erase(key);
    const auto [it, fresh] = group_of.try_emplace(std::move(rest), groups.size());
    if (fresh) {
      groups.push_back({i});
    } else {
      groups[it->second].push_back(i);
    }
  }
  return groups;
}

Launch build_group_launch(const SweepSpec& spec, const std::vector<const Point*>& members,
                          const std::string& colltune_path, const std::string& records_path) {
  if (members.size() == 1) return build_launch(spec, *members.front(), colltune_path, records_path);
  Point shared = *members.front();
  for (const std::string& key : spec.interleave) shared.settings.erase(key);
  Launch launch = build_launch(spec, shared, colltune_path, records_path);
  for (const Point* member : members) {
    std::string setting;
    for (const std::string& key : spec.interleave) {
      setting += (setting.empty() ? "" : " ") + key + "=" + knob_value(*member, key);
    }
    launch.argv.insert(launch.argv.end(), {"--interleave-set", setting});
  }
  return launch;
}

int member_of_record(const SweepSpec& spec, const std::vector<const Point*>& members,
                     const std::map<std::string, std::string>& in_process_knobs) {
  // The one key by which a shared launch's records are told apart, as `colltune report` does.
  const std::string wanted = setting_name(in_process_knobs);
  for (std::size_t m = 0; m < members.size(); ++m) {
    std::map<std::string, std::string> knobs;
    for (const std::string& key : spec.interleave) knobs[key] = knob_value(*members[m], key);
    if (setting_name(knobs) == wanted) return static_cast<int>(m);
  }
  return -1;
}

}  // namespace colltune
