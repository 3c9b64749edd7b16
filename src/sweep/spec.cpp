#include "sweep/spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/exchange.hpp"
#include "core/suggest.hpp"
#include "knobs/interleave.hpp"
#include "knobs/knob_scope.hpp"
#include "knobs/knobs.hpp"
#include "sweep/spec_parser.hpp"

namespace colltune {
namespace {

const std::vector<std::string> kTopKeys{
    "name",       "launcher", "launcher_args", "mpi_family",
    "hosts",      "hostfile", "repetitions",   "point_timeout_seconds",
    "colltune",   "env",      "mpis",          "benchmark",
    "axes",       "include",  "exclude",       "baseline",
    "interleave", "race",     "exclusive"};

// benchmark key -> `colltune run` flag; "backends" becomes the "backend" axis instead.
const std::vector<std::pair<std::string, std::string>> kBenchmarkFlags{
    {"backends", ""},
    {"collectives", "--coll"},
    {"min_bytes", "-b"},
    {"max_bytes", "-e"},
    {"step_factor", "-f"},
    {"step_bytes", "-i"},
    {"iters", "-n"},
    {"warmup_iters", "-w"},
    {"check", "-c"},
    {"dtypes", "-d"},
    {"ops", "-o"},
    {"root", "-r"},
    {"timing", "--timing"},
    {"cache", "--cache"},
    {"samples", "--repetitions"},
    {"window", "--window"},
    {"timeout_seconds", "--timeout"},
    {"in_place", "--in-place"},
    {"gpus", "-g"},
    {"agg_iters", "-m"},
    {"device", "--device"},
    {"graph", "-G"},  // true or false: a flag, not a value
    {"nccl_blocking", "--nccl-blocking"},
    {"cga_cluster_size", "--cga-cluster-size"},
    {"min_ctas", "--min-ctas"},
    {"max_ctas", "--max-ctas"},
    {"net_name", "--net-name"},
    {"buffers", "--buffers"},
    {"exchange", "--exchange"},
    {"exchange_seed", "--exchange-seed"}};

void check_axis_value(const Parser& p, const YAML::Node& node, const std::string& key,
                      const std::string& value, SweepSpec& spec,
                      const std::string& section = "axes") {
  const std::string field = section + "." + key;
  std::optional<std::string> problem;
  if (key == "np" || key == "nodes" || key == "ranks_per_node") {
    p.integer(node, field, 1, 1'000'000);
  } else if (key == "map_by") {
    problem = check_map_by(value);
  } else if (key == "bind_to") {
    problem = check_bind_to(value);
  } else if (key == "rank_by") {
    problem = check_rank_by(value);
  } else if (key == "backend") {
    if (value != "mpi" && value != "nccl") problem = "allowed: mpi nccl";
  } else if (key == "exchange") {
    try {
      parse_exchange(value, 1, field);
    } catch (const ConfigError& e) {  // "<field>: <why>", placed at the node
      p.fail(node, field, std::string(e.what()).substr(field.size() + 2));
    }
  } else if (key == "exchange_seed") {
    p.integer(node, field, 0, INT64_MAX);
  } else if (key == kMpiAxis) {
    problem = check_mpi_name(spec, value);
  } else if (is_env_key(key)) {
    problem = check_knob(key, value);
  }
  if (problem) p.fail(node, field, fmt::format("'{}' is not allowed; {}", value, *problem));
  if (is_env_key(key) && !is_known_knob(key)) {
    const std::string note = fmt::format(
        "{} is not a knob colltune knows; its values are passed through unchecked", key);
    if (std::find(spec.notes.begin(), spec.notes.end(), note) == spec.notes.end()) {
      spec.notes.push_back(note);
    }
  }
}

Axis parse_axis(const Parser& p, const YAML::Node& key_node, const YAML::Node& values,
                SweepSpec& spec) {
  Axis axis{key_node.as<std::string>(), {}};
  const std::string field = "axes." + axis.key;
  if (!is_setting_key(axis.key) && axis.key != "backend") {
    const auto& known = placement_axis_keys();
    if (std::find(known.begin(), known.end(), axis.key) == known.end()) {
      std::vector<std::string> allowed = known;
      allowed.push_back("backend");
      for (const RunFlagAxis& run_flag : run_flag_axes()) allowed.emplace_back(run_flag.key);
      const auto near = nearest_word(axis.key, allowed);
      p.fail(key_node, field,
             fmt::format("unknown key{}; allowed: {}, or an environment variable",
                         near ? fmt::format(" (did you mean '{}'?)", *near) : "",
                         fmt::join(allowed, " ")));
    }
  }
  YAML::Node list = values.IsSequence() ? values : YAML::Node(YAML::NodeType::Sequence);
  if (!values.IsSequence()) list.push_back(values);
  if (list.size() == 0) p.fail(values, field, "[] is empty; allowed: a non-empty list of values");
  for (const auto& item : list) {
    if (item.IsNull()) {
      if (axis.key == "np" || axis.key == "backend") {
        p.fail(item, field, "null is not allowed; allowed: a value");
      }
      axis.values.push_back(std::nullopt);
    } else if (axis.key == "launcher_args") {
      axis.values.push_back(nlohmann::json(p.strings(item, field)).dump());
    } else {
      const std::string value = p.scalar(item, field);
      check_axis_value(p, item, axis.key, value, spec);
      axis.values.push_back(value);
    }
  }
  return axis;
}

Rule parse_rule(const Parser& p, const YAML::Node& node, const std::string& field,
                const std::vector<std::string>& axis_keys) {
  if (!node.IsMap()) p.fail(node, field, "expected a mapping of axis to value");
  Rule rule;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (std::find(axis_keys.begin(), axis_keys.end(), key) == axis_keys.end()) {
      const auto near = nearest_word(key, axis_keys);
      p.fail(entry.first, field + "." + key,
             fmt::format("not an axis of this spec{}; allowed: {}",
                         near ? fmt::format(" (did you mean '{}'?)", *near) : "",
                         fmt::join(axis_keys, " ")));
    }
    rule[key] = entry.second.IsNull()
                    ? std::nullopt
                    : std::optional<std::string>(p.scalar(entry.second, field + "." + key));
  }
  return rule;
}

void parse_benchmark(const Parser& p, const YAML::Node& node, SweepSpec& spec,
                     std::vector<std::optional<std::string>>& backends) {
  std::vector<std::string> known;
  for (const auto& [key, flag] : kBenchmarkFlags) known.push_back(key);
  p.check_keys(node, "benchmark", known);
  for (const auto& [key, flag] : kBenchmarkFlags) {
    const YAML::Node value = node[key];
    if (!value) continue;
    const auto items = p.strings(value, "benchmark." + key);
    if (items.empty()) p.fail(value, "benchmark." + key, "[] is empty; allowed: a non-empty list");
    if (key == "backends") {
      backends.assign(items.begin(), items.end());
      continue;
    }
    if (key == "graph") {
      if (items.size() != 1 || (items[0] != "true" && items[0] != "false")) {
        p.fail(value, "benchmark.graph",
               fmt::format("'{}' is not allowed; allowed: true false", fmt::join(items, ",")));
      }
      if (items[0] == "true") spec.run_args.push_back(flag);
      continue;
    }
    spec.run_args.push_back(flag);
    spec.run_args.push_back(fmt::format("{}", fmt::join(items, ",")));
  }
}

// interleave: axes switched inside one launch: OMPI_MCA_ ones with integer values (through
// MPI_T), or NCCL_ALGO / NCCL_PROTO (at each NCCL communicator init); one kind per spec.
void parse_interleave_keys(const Parser& p, const YAML::Node& node, SweepSpec& spec) {
  for (const std::string& key : p.strings(node, "interleave")) {
    const auto axis = std::find_if(spec.axes.begin(), spec.axes.end(),
                                   [&](const Axis& a) { return a.key == key; });
    const bool repeated =
        std::find(spec.interleave.begin(), spec.interleave.end(), key) != spec.interleave.end();
    const bool nccl = is_nccl_in_process_knob(key), mpich = is_mpich_in_process_knob(key);
    if ((!key.starts_with("OMPI_MCA_") && !nccl && !mpich) || axis == spec.axes.end() || repeated) {
      p.fail(node, "interleave",
             fmt::format("'{}' is not allowed; allowed: OMPI_MCA_ axes of this spec (MPI_T "
                         "switches them inside one launch), its MPICH algorithm axes "
                         "(MPIR_CVAR_<COLL>_INTRA_ALGORITHM, read at every call), or its "
                         "NCCL_ALGO / NCCL_PROTO axes (set at each NCCL communicator init); "
                         "each once",
                         key));
    }
    const std::string& first = spec.interleave.empty() ? key : spec.interleave.front();
    if (is_nccl_in_process_knob(first) != nccl || is_mpich_in_process_knob(first) != mpich) {
      p.fail(node, "interleave",
             fmt::format("{} and {} are switched by different libraries; allowed: axes of one "
                         "kind (OMPI_MCA_, MPIR_CVAR_ or NCCL)",
                         first, key));
    }
    for (const auto& value : axis->values) {
      if (value && !canonical_in_process_value(key, *value)) {
        const char* kind = nccl ? "lists NCCL parses" : mpich ? "value names" : "integers";
        p.fail(node, "interleave",
               fmt::format("{} has the value '{}'; allowed: {} and null", key, *value, kind));
      }
    }
    const auto dynamic = spec.env.find(std::string(kDynamicRulesKnob));
    if (needs_dynamic_rules(key) && (dynamic == spec.env.end() || dynamic->second != "1")) {
      p.fail(node, "interleave",
             fmt::format("{} needs env: {}: 1 (MPI_T cannot set it)", key, kDynamicRulesKnob));
    }
    spec.interleave.push_back(key);
  }
}

SweepSpec parse_spec_root(const YAML::Node& root, const std::string& text,
                          const std::string& source);

}  // namespace

SweepSpec parse_spec(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
    // An empty spec would run a default benchmark nobody asked for.
    if (root.IsNull()) {
      throw ConfigError(fmt::format(
          "{}: the spec is empty; allowed: a spec with at least one key (configs/annotated.yaml "
          "documents them; `colltune sweep` without a spec runs the built-in default)",
          source));
    }
    return parse_spec_root(root, text, source);
  } catch (const YAML::Exception& e) {
    // Whatever yaml-cpp throws (a complex key, a bad conversion) names the file and place.
    throw ConfigError(fmt::format("{}:{}:{}: {}: {}", source, e.mark.line + 1, e.mark.column + 1,
                                  dynamic_cast<const YAML::ParserException*>(&e) != nullptr
                                      ? "not valid YAML"
                                      : "not a spec colltune reads",
                                  e.msg));
  }
}

namespace {

SweepSpec parse_spec_root(const YAML::Node& root, const std::string& text,
                          const std::string& source) {
  const Parser p(source);
  SweepSpec spec;
  spec.source_text = text;
  p.check_structure(root);
  p.check_keys(root, "", kTopKeys);
  spec.name = root["name"] ? p.scalar(root["name"], "name") : "sweep";
  // It names the store's directory, with a stamp: a file name holds 255 bytes.
  if (spec.name.empty() || spec.name.size() > 200 ||
      !std::all_of(spec.name.begin(), spec.name.end(), [](unsigned char ch) {
        return std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.';
      })) {
    p.fail(root["name"], "name",
           fmt::format("'{}' is not allowed; allowed: letters, digits, - _ and ., at most 200",
                       spec.name));
  }
  if (root["launcher"]) {
    const std::string launcher = p.scalar(root["launcher"], "launcher");
    if (launcher == "mpirun" || launcher == "mpiexec") {
      spec.launcher = LauncherKind::kMpirun;
      spec.launcher_program = launcher;
    } else if (launcher == "srun") {
      spec.launcher = LauncherKind::kSrun;
    } else if (launcher == "local") {
      spec.launcher = LauncherKind::kLocal;
    } else {
      p.fail(root["launcher"], "launcher",
             fmt::format("'{}' is not allowed; allowed: mpirun mpiexec srun local", launcher));
    }
  }
  if (root["mpi_family"]) {
    const std::string family = p.scalar(root["mpi_family"], "mpi_family");
    spec.dialect = dialect_named(family);
    if (!spec.dialect)
      p.fail(root["mpi_family"], "mpi_family",
             fmt::format("'{}' is not allowed; allowed: openmpi mpich intelmpi", family));
  }
  if (root["launcher_args"]) spec.launcher_args = p.strings(root["launcher_args"], "launcher_args");
  if (root["hosts"]) spec.hosts = p.hosts(root["hosts"], "hosts");
  if (root["hostfile"]) spec.hostfile = p.scalar(root["hostfile"], "hostfile");
  if (!spec.hosts.empty() && !spec.hostfile.empty()) {
    p.fail(root["hostfile"], "hostfile", "give hosts or hostfile, not both");
  }
  if (root["repetitions"]) {
    spec.repetitions = static_cast<int>(p.integer(root["repetitions"], "repetitions", 1, 1000));
  }
  if (root["point_timeout_seconds"]) {
    spec.point_timeout_seconds =
        p.positive_number(root["point_timeout_seconds"], "point_timeout_seconds");
  }
  if (root["colltune"]) spec.colltune_path = p.scalar(root["colltune"], "colltune");
  if (const YAML::Node exclusive = root["exclusive"]) {
    const std::string value = p.scalar(exclusive, "exclusive");
    if (value != "true" && value != "false") {
      p.fail(exclusive, "exclusive",
             fmt::format("'{}' is not allowed; allowed: true false", value));
    }
    spec.exclusive = value == "true";
  }
  if (const YAML::Node race = root["race"]) {
    const std::string value = p.scalar(race, "race");
    if (value != "true" && value != "false") {
      p.fail(race, "race", fmt::format("'{}' is not allowed; allowed: true false", value));
    }
    spec.race = value == "true";
  }

  if (root["env"]) spec.env = parse_env_section(p, root["env"], "env");
  parse_mpis(p, root, spec);

  std::vector<std::optional<std::string>> backends{"mpi"};
  if (root["benchmark"]) parse_benchmark(p, root["benchmark"], spec, backends);

  bool backend_axis = false;
  if (const YAML::Node axes = root["axes"]) {
    if (!axes.IsMap()) p.fail(axes, "axes", "expected a mapping of axis to a list of values");
    for (const auto& entry : axes) {
      spec.axes.push_back(parse_axis(p, entry.first, entry.second, spec));
      const std::string& key = spec.axes.back().key;
      if (key == "backend") {
        if (root["benchmark"] && root["benchmark"]["backends"]) {
          p.fail(entry.first, "axes.backend", "also given as benchmark.backends; give it once");
        }
        backend_axis = true;
      }
      if (run_flag_axis(key) && root["benchmark"] && root["benchmark"][key]) {
        p.fail(entry.first, "axes." + key,
               fmt::format("also given as benchmark.{}; give it once", key));
      }
    }
  }
  if (!backend_axis) spec.axes.insert(spec.axes.begin(), Axis{"backend", backends});
  if (spec.launcher == LauncherKind::kLocal) {
    for (const Axis& axis : spec.axes) {
      if (axis.key != "np") continue;
      for (const auto& v : axis.values) {
        if (v != "1")
          p.fail(root["axes"]["np"], "axes.np",
                 fmt::format("'{}' is not allowed with launcher local; allowed: 1", *v));
      }
    }
  }

  std::vector<std::string> axis_keys;
  for (const Axis& axis : spec.axes) axis_keys.push_back(axis.key);
  for (const char* section : {"include", "exclude"}) {
    const YAML::Node rules = root[section];
    if (!rules) continue;
    if (!rules.IsSequence()) p.fail(rules, section, "expected a list of rules");
    for (const auto& rule : rules) {
      (std::string(section) == "include" ? spec.include : spec.exclude)
          .push_back(parse_rule(p, rule, section, axis_keys));
    }
  }
  if (root["baseline"]) {
    spec.baseline = parse_rule(p, root["baseline"], "baseline", axis_keys);
    for (const auto& [key, value] : spec.baseline) {  // as strictly as the axis' own values
      if (value) check_axis_value(p, root["baseline"][key], key, *value, spec, "baseline");
    }
  }
  if (root["interleave"]) parse_interleave_keys(p, root["interleave"], spec);
  if (spec.race && spec.repetitions <= 3) {
    spec.notes.push_back(fmt::format(
        "race: true stops points only after round 3 (the fewest rounds a decision rests on); "
        "with repetitions {} every point runs every round",
        spec.repetitions));
  }
  return spec;
}

}  // namespace

}  // namespace colltune
