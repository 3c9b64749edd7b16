#include "sweep/mpi_knobs.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/mpi_algorithms.hpp"
#include "core/mpi_family.hpp"
#include "knobs/interleave.hpp"
#include "knobs/knob_scope.hpp"
#include "knobs/knobs.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {
namespace {

// An algorithm knob's name: Open MPI's coll/tuned forced algorithm, MPICH's or Intel MPI's.
bool is_algorithm_knob(const std::string& key) {
  return mpi_algorithm_knob_collective(key).has_value() ||
         (key.starts_with("OMPI_MCA_coll_tuned_") && key.ends_with("_algorithm") &&
          is_known_knob(key));
}

// Each algorithm knob the spec sets, with where and the values (null baselines left out).
struct SetKnob {
  std::string field, key, value;
};
std::vector<SetKnob> algorithm_knobs_set(const SweepSpec& spec) {
  std::vector<SetKnob> set;
  for (const auto& [key, value] : spec.env) {
    if (is_algorithm_knob(key)) set.push_back({"env." + key, key, value});
  }
  for (const Axis& axis : spec.axes) {
    if (!is_algorithm_knob(axis.key)) continue;
    for (const auto& value : axis.values) {
      if (value) set.push_back({"axes." + axis.key, axis.key, *value});
    }
  }
  return set;
}

// `colltune topo --list-algorithms --json` of the binary the points run; nullopt with `why`.
std::optional<nlohmann::json> ask_offered(const std::string& colltune, std::string& why) {
  char path[] = "/tmp/colltune-algorithms-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) {
    why = "no temporary file";
    return std::nullopt;
  }
  ::close(fd);
  SuperviseOptions options;
  options.limit_seconds = 60;
  const LaunchOutcome outcome =
      run_supervised(Launch{{colltune, "topo", "--list-algorithms", "--json"}, {}}, path, options);
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  if (outcome.exit_code != 0) {
    const std::string said = text.str();
    why = fmt::format("{} topo --list-algorithms: exit {}: {}", colltune, outcome.exit_code,
                      said.substr(0, said.find('\n')).substr(0, 200));
    return std::nullopt;
  }
  try {
    // The JSON is the output's last part; anything an MPI prints first is skipped.
    const std::string all = text.str();
    const std::size_t start = all.find("{\n");
    return nlohmann::json::parse(start == std::string::npos ? all : all.substr(start));
  } catch (const nlohmann::json::exception& e) {
    why = fmt::format("{} topo --list-algorithms: unreadable JSON ({})", colltune, e.what());
    return std::nullopt;
  }
}

AlgorithmKnob knob_from(const nlohmann::json& entry) {
  AlgorithmKnob knob{entry.value("env_name", ""), entry.value("collective", ""),
                     entry.value("values", std::vector<std::string>{})};
  if (entry.contains("preset_ids") && entry["preset_ids"].size() == 2) {
    knob.lowest_id = entry["preset_ids"][0].get<int>();
    knob.highest_id = entry["preset_ids"][1].get<int>();
  }
  return knob;
}

// Open MPI takes the number of a name: 0 .. names - 1.
std::optional<std::string> check_numbered(const AlgorithmKnob& knob, const std::string& value) {
  char* end = nullptr;
  const long number = std::strtol(value.c_str(), &end, 10);
  if (!value.empty() && *end == '\0' && number >= 0 &&
      number < static_cast<long>(knob.names.size())) {
    return std::nullopt;
  }
  std::string allowed = "allowed:";
  for (std::size_t i = 0; i < knob.names.size(); ++i) {
    allowed += fmt::format(" {} ({})", i, knob.names[i]);
  }
  return allowed + " (what this Open MPI offers)";
}

}  // namespace

void check_mpi_algorithm_knobs(SweepSpec& spec, const std::string& source,
                               const std::string& colltune) {
  const std::vector<SetKnob> set = algorithm_knobs_set(spec);
  if (set.empty()) return;
  for (const SetKnob& knob : set) {
    const auto device = spec.env.find("MPIR_CVAR_DEVICE_COLLECTIVES");
    if (is_mpich_in_process_knob(knob.key) &&
        (device == spec.env.end() || device->second != "none")) {
      throw ConfigError(fmt::format(
          "{}: {}: MPICH's ch4 device collectives (MPIR_CVAR_DEVICE_COLLECTIVES=percoll, its "
          "default) route calls around {}, so the forced algorithm would often not run; allowed: "
          "env: {{MPIR_CVAR_DEVICE_COLLECTIVES: none}} for every point, baseline included",
          source, knob.field, knob.key));
    }
  }
  std::string why;
  const auto offered = ask_offered(colltune, why);
  if (!offered) {
    spec.notes.push_back("algorithm values checked for their form only: " + why);
    return;
  }
  const std::string family = offered->value("mpi_family", "");
  const std::string mpi = family + " " + offered->value("mpi_version", "");
  const auto dialect = dialect_of_family(family);
  if (spec.launcher == LauncherKind::kMpirun && spec.dialect && dialect &&
      *dialect != *spec.dialect) {
    throw ConfigError(fmt::format(
        "{}: {} is built against {}, but the launcher speaks {}'s dialect; allowed: the colltune "
        "built against the launcher's MPI (colltune_path:), or that MPI's launcher",
        source, colltune, mpi, dialect_name(*spec.dialect)));
  }
  for (const SetKnob& knob : set) {
    const nlohmann::json* entry = nullptr;
    for (const auto& e : (*offered)["knobs"]) {
      if (e.value("env_name", "") == knob.key) entry = &e;
    }
    if (entry == nullptr) {
      throw ConfigError(fmt::format(
          "{}: {}: {} offers no {}; allowed: the knobs `{} topo --list-algorithms` lists", source,
          knob.field, mpi, knob.key, colltune));
    }
    const AlgorithmKnob offered_knob = knob_from(*entry);
    const auto problem = knob.key.starts_with("OMPI_MCA_")
                             ? check_numbered(offered_knob, knob.value)
                             : check_algorithm_value(offered_knob, knob.value);
    if (problem) {
      throw ConfigError(
          fmt::format("{}: {}: '{}' is not allowed; {}", source, knob.field, knob.value, *problem));
    }
  }
}

}  // namespace colltune
