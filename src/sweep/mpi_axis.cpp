#include "sweep/mpi_axis.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "knobs/knobs.hpp"
#include "sweep/spec_parser.hpp"

namespace colltune {

std::string mpi_of(const Point& point) {
  const auto it = point.settings.find(std::string(kMpiAxis));
  return it == point.settings.end() ? std::string() : it->second;
}

SweepSpec spec_for_mpi(const SweepSpec& spec, const std::string& mpi) {
  SweepSpec out = spec;
  out.mpis.clear();
  const auto it = spec.mpis.find(mpi);
  if (mpi.empty() || it == spec.mpis.end()) return out;
  const MpiChoice& choice = it->second;
  out.launcher_program = choice.launcher_program;
  out.dialect = choice.dialect;
  out.colltune_path = choice.colltune_path;
  if (choice.launcher_args) out.launcher_args = *choice.launcher_args;
  for (const auto& [key, value] : choice.env) out.env[key] = value;
  return out;
}

std::vector<std::pair<std::string, SweepSpec>> specs_by_mpi(const SweepSpec& spec,
                                                            const std::vector<Point>& points) {
  std::map<std::string, std::vector<const Point*>> by_mpi;
  for (const Point& p : points) by_mpi[mpi_of(p)].push_back(&p);
  std::vector<std::pair<std::string, SweepSpec>> out;
  for (const auto& [mpi, members] : by_mpi) {
    SweepSpec view = spec_for_mpi(spec, mpi);
    std::vector<Axis> axes;
    for (const Axis& axis : view.axes) {
      if (axis.key == kMpiAxis) continue;
      Axis used{axis.key, {}};
      for (const auto& value : axis.values) {
        const bool taken = std::any_of(members.begin(), members.end(), [&](const Point* p) {
          const auto it = p->settings.find(axis.key);
          return value ? it != p->settings.end() && it->second == *value : it == p->settings.end();
        });
        if (taken) used.values.push_back(value);
      }
      // An axis these points leave unset is not theirs: its knobs need not suit this MPI.
      if (std::any_of(used.values.begin(), used.values.end(), [](const auto& v) { return v; }))
        axes.push_back(std::move(used));
    }
    view.axes = std::move(axes);
    out.emplace_back(mpi, std::move(view));
  }
  return out;
}

std::map<std::string, std::string> parse_env_section(const Parser& p, const YAML::Node& node,
                                                     const std::string& field) {
  if (!node.IsMap()) p.fail(node, field, "expected a mapping of variable to value");
  std::map<std::string, std::string> env;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (!is_env_key(key)) {
      p.fail(entry.first, field + "." + key,
             "not an environment variable name; allowed: NAME_LIKE_THIS");
    }
    const std::string value = p.scalar(entry.second, field + "." + key);
    if (const auto problem = check_knob(key, value)) {
      p.fail(entry.second, field + "." + key,
             fmt::format("'{}' is not allowed; {}", value, *problem));
    }
    env[key] = value;
  }
  return env;
}

void parse_mpis(const Parser& p, const YAML::Node& root, SweepSpec& spec) {
  const YAML::Node mpis = root["mpis"];
  if (!mpis) return;
  if (!mpis.IsMap() || mpis.size() == 0)
    p.fail(mpis, "mpis", "expected a mapping of name to {colltune:, launcher:, ...}");
  if (!root["axes"] || !root["axes"].IsMap() || !root["axes"][std::string(kMpiAxis)]) {
    p.fail(mpis, "mpis",
           "no axis names them; allowed: with axes: {mpi: [null, NAME, ...]} (null: the spec's "
           "own launcher and colltune)");
  }
  const bool mpirun = spec.launcher == LauncherKind::kMpirun;
  for (const auto& entry : mpis) {
    const std::string name = entry.first.as<std::string>();
    const std::string field = "mpis." + name;
    if (name.empty() || name.size() > 64 ||
        !std::all_of(name.begin(), name.end(), [](unsigned char ch) {
          return std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.';
        })) {
      p.fail(entry.first, field,
             fmt::format("'{}' is not allowed; allowed: letters, digits, - _ and ., at most 64",
                         name));
    }
    const YAML::Node node = entry.second;
    p.check_keys(node, field, {"colltune", "launcher", "mpi_family", "launcher_args", "env"});
    MpiChoice choice;
    if (!node["colltune"]) {
      p.fail(node, field + ".colltune",
             "missing; allowed: the path of a colltune built against that MPI");
    }
    choice.colltune_path = p.scalar(node["colltune"], field + ".colltune");
    if (mpirun && !node["launcher"]) {
      p.fail(node, field + ".launcher",
             "missing; allowed: that MPI's mpirun or mpiexec (a path where several are installed)");
    }
    if (!mpirun && node["launcher"]) {
      p.fail(node["launcher"], field + ".launcher",
             "given, but the spec's launcher starts every point; allowed: with launcher: mpirun or "
             "mpiexec");
    }
    if (node["launcher"]) choice.launcher_program = p.scalar(node["launcher"], field + ".launcher");
    if (node["mpi_family"]) {
      const std::string family = p.scalar(node["mpi_family"], field + ".mpi_family");
      choice.dialect = dialect_named(family);
      if (!choice.dialect)
        p.fail(node["mpi_family"], field + ".mpi_family",
               fmt::format("'{}' is not allowed; allowed: openmpi mpich intelmpi", family));
    }
    // `launcher_args: []` is an answer: the spec's own are another dialect's words.
    if (const YAML::Node args = node["launcher_args"]) {
      choice.launcher_args = args.IsSequence() && args.size() == 0
                                 ? std::vector<std::string>{}
                                 : p.strings(args, field + ".launcher_args");
    }
    if (node["env"]) choice.env = parse_env_section(p, node["env"], field + ".env");
    spec.mpis[name] = std::move(choice);
  }
}

std::optional<std::string> check_mpi_name(const SweepSpec& spec, const std::string& name) {
  if (spec.mpis.count(name) != 0) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& [known, choice] : spec.mpis) names.push_back(known);
  if (names.empty()) return "allowed: the names under mpis: (the spec gives none), or null";
  return fmt::format("allowed: {} (under mpis:), or null", fmt::join(names, " "));
}

}  // namespace colltune
