#include "sweep/launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "store/atomic_file.hpp"
#include "sweep/dialect.hpp"
#include "sweep/groups.hpp"
#include "sweep/mpi_axis.hpp"

namespace colltune {
namespace {

std::optional<std::string> get(const Settings& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? std::nullopt : std::optional<std::string>(it->second);
}

[[noreturn]] void unsupported(const Point& point, const std::string& what) {
  throw ConfigError(fmt::format("point {} ({}): {}", point.id, point.label, what));
}

std::string srun_cpu_bind(const Point& point, const std::string& bind_to) {
  const std::string base = bind_to.substr(0, bind_to.find(':'));
  static const std::map<std::string, std::string> kMap{
      {"none", "none"},      {"core", "cores"},      {"hwthread", "threads"},
      {"socket", "sockets"}, {"package", "sockets"}, {"numa", "ldoms"}};
  const auto it = kMap.find(base);
  if (it == kMap.end()) {
    unsupported(point, fmt::format("bind_to '{}' has no srun --cpu-bind equivalent; allowed with "
                                   "srun: none core hwthread socket package numa",
                                   bind_to));
  }
  return it->second;
}

std::string srun_distribution(const Point& point, const std::string& map_by) {
  if (map_by == "slot" || map_by == "core") return "block";
  if (map_by == "node") return "cyclic";
  unsupported(point, fmt::format("map_by '{}' has no srun --distribution equivalent; allowed "
                                 "with srun: slot core (block) node (cyclic)",
                                 map_by));
}

void append_point_launcher_args(const Settings& s, std::vector<std::string>& argv) {
  if (const auto raw = get(s, "launcher_args")) {
    for (const auto& arg : nlohmann::json::parse(*raw).get<std::vector<std::string>>()) {
      argv.push_back(arg);
    }
  }
}

}  // namespace

Launch build_launch(const SweepSpec& spec, const Point& point, const std::string& colltune_path,
                    const std::string& records_path) {
  // A point under another MPI than the spec's own: that MPI's launcher, dialect and colltune.
  if (const std::string mpi = mpi_of(point); !mpi.empty() && spec.mpis.count(mpi) != 0) {
    const SweepSpec under = spec_for_mpi(spec, mpi);
    return build_launch(under, point, under.colltune_path, records_path);
  }
  const Settings& s = point.settings;
  Launch launch;
  launch.env = spec.env;
  for (const auto& [key, value] : s) {
    if (is_env_key(key)) launch.env[key] = value;
  }
  const std::string np = ranks_of(spec, s);
  auto& argv = launch.argv;

  if (spec.launcher == LauncherKind::kMpirun) {
    const LaunchDialect dialect = spec.dialect.value_or(LaunchDialect::kOpenMpi);
    Placement placement{np,
                        spec.hosts,
                        spec.hostfile,
                        get(s, "ranks_per_node"),
                        get(s, "map_by"),
                        get(s, "bind_to"),
                        get(s, "rank_by")};
    if (const auto nodes = get(s, "nodes")) {
      const auto wanted = static_cast<std::size_t>(std::stoul(*nodes));
      if (placement.hosts.size() < wanted) {
        unsupported(point,
                    fmt::format("nodes={} needs at least {} entries in hosts with {}; "
                                "the spec lists {}",
                                wanted, wanted, spec.launcher_program, placement.hosts.size()));
      }
      placement.hosts.resize(wanted);
    }
    if (placement.hosts.empty()) placement.hostfile = spec.hostfile;
    if (const auto why = dialect_argv(dialect, spec.launcher_program, placement, launch.env, argv))
      unsupported(point, *why);
    argv.insert(argv.end(), spec.launcher_args.begin(), spec.launcher_args.end());
    append_point_launcher_args(s, argv);
    append_exports(dialect, launch.env, argv);
  } else if (spec.launcher == LauncherKind::kSrun) {
    argv = {"srun", "--ntasks=" + np};
    if (const auto v = get(s, "nodes")) argv.push_back("--nodes=" + *v);
    if (const auto v = get(s, "ranks_per_node")) argv.push_back("--ntasks-per-node=" + *v);
    if (!spec.hosts.empty())
      argv.push_back(fmt::format("--nodelist={}", fmt::join(spec.hosts, ",")));
    if (!spec.hostfile.empty()) argv.push_back("--nodefile=" + spec.hostfile);
    if (const auto v = get(s, "bind_to")) argv.push_back("--cpu-bind=" + srun_cpu_bind(point, *v));
    if (const auto v = get(s, "map_by"))
      argv.push_back("--distribution=" + srun_distribution(point, *v));
    if (get(s, "rank_by")) unsupported(point, "rank_by has no srun equivalent; use map_by");
    std::vector<std::string> exported{"ALL"};
    for (const auto& [key, value] : launch.env) exported.push_back(key);
    argv.push_back(fmt::format("--export={}", fmt::join(exported, ",")));
    argv.insert(argv.end(), spec.launcher_args.begin(), spec.launcher_args.end());
    append_point_launcher_args(s, argv);
  } else {
    for (const char* key : {"nodes", "ranks_per_node", "map_by", "bind_to", "rank_by"}) {
      if (get(s, key))
        unsupported(point,
                    fmt::format("{} needs a launcher; launcher local runs one process", key));
    }
  }
  argv.push_back(colltune_path);
  argv.push_back("run");
  argv.insert(argv.end(), spec.run_args.begin(), spec.run_args.end());
  argv.insert(argv.end(), {"--backend", get(s, "backend").value_or("mpi"), "--json", records_path});
  for (const RunFlagAxis& axis : run_flag_axes()) {
    if (const auto v = get(s, std::string(axis.key)))
      argv.insert(argv.end(), {std::string(axis.flag), *v});
  }
  return launch;
}

bool has_control_characters(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; });
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char ch) {
    return std::isalnum(ch) ||
           std::string_view("-_./=:,+@%").find(static_cast<char>(ch)) != std::string_view::npos;
  });
  if (plain) return text;
  // A control character (a newline above all) inside '...' would split the launch over lines:
  // ANSI-C quoting ($'...': bash, zsh, ksh, POSIX.1-2024 sh) keeps it one line.
  if (has_control_characters(text)) {
    std::string out = "$'";
    for (unsigned char ch : text) {
      if (ch == '\\' || ch == '\'') {
        out += '\\';
        out += static_cast<char>(ch);
      } else if (ch == '\n') {
        out += "\\n";
      } else if (ch == '\t') {
        out += "\\t";
      } else if (ch < 0x20 || ch == 0x7f) {
        out += fmt::format("\\x{:02x}", ch);
      } else {
        out += static_cast<char>(ch);
      }
    }
    return out + "'";
  }
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string ranks_of(const SweepSpec& spec, const Settings& s) {
  if (const auto np = get(s, "np")) return *np;
  const auto nodes = get(s, "nodes"), per_node = get(s, "ranks_per_node");
  if (nodes && per_node) return std::to_string(std::stoll(*nodes) * std::stoll(*per_node));
  return spec.launcher == LauncherKind::kLocal ? "1" : "2";
}

std::string sbatch_script(const SweepSpec& spec, const std::vector<Point>& points,
                          const std::string& colltune_path, const std::string& spec_path,
                          const std::string& results_dir) {
  long long ntasks = 1, nodes = 1, per_node = 0;
  for (const Point& p : points) {
    ntasks = std::max(ntasks, std::stoll(ranks_of(spec, p.settings)));
    nodes = std::max(nodes, std::stoll(get(p.settings, "nodes").value_or("1")));
    per_node = std::max(per_node, std::stoll(get(p.settings, "ranks_per_node").value_or("0")));
  }
  // The limit is what the driver itself enforces: every launch its full point_timeout_seconds,
  // plus a minute for the driver; points sharing a launch (interleave:) count once.
  const std::size_t launches =
      launch_groups(spec, points).size() * static_cast<std::size_t>(spec.repetitions);
  const auto total_seconds = static_cast<long long>(std::ceil(spec.point_timeout_seconds *
                                                              static_cast<double>(launches))) +
                             60;
  const long long minutes = std::max(1LL, (total_seconds + 59) / 60);
  std::string script = "#!/bin/bash\n";
  script += fmt::format(
      "# colltune sweep '{}': {} points in {} launches ({} round(s)). --time assumes the worst\n"
      "# the driver allows: {} launches x point_timeout_seconds {} s + 60 s = {} min; lower\n"
      "# point_timeout_seconds in the spec to ask for less.\n",
      spec.name, points.size(), launches, spec.repetitions, launches, spec.point_timeout_seconds,
      minutes);
  script += fmt::format("#SBATCH --job-name=colltune-{}\n", spec.name);
  script += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks={}\n", nodes, ntasks);
  if (per_node > 0) script += fmt::format("#SBATCH --ntasks-per-node={}\n", per_node);
  // Whole nodes: a benchmark sharing them measures its neighbours (spec: exclusive: false).
  if (spec.exclusive) script += "#SBATCH --exclusive\n";
  script += fmt::format("#SBATCH --time={}:{:02}:00\n", minutes / 60, minutes % 60);
  script += fmt::format("#SBATCH --output=colltune-{}-%j.out\n", spec.name);
  script += "set -euo pipefail\n";
  script +=
      fmt::format("exec {} sweep {}--results {}\n", shell_quote(colltune_path),
                  spec_path.empty() ? "" : shell_quote(spec_path) + " ", shell_quote(results_dir));
  return script;
}

void keep_srun_host_order(Launch& launch, const std::vector<std::string>& hosts, int ranks_per_host,
                          const std::string& hostfile) {
  std::string text;
  for (const std::string& h : hosts) {
    for (int k = 0; k < ranks_per_host; ++k) text += h + "\n";
  }
  write_file_atomic(hostfile, text);
  // srun takes --nodelist as the arbitrary layout itself when both are given, and a list with
  // fewer names than tasks is refused ("You asked for 2 tasks but hostlist specified 1 nodes"):
  // the hostfile alone names the nodes, a line per task.
  std::erase_if(launch.argv, [](const std::string& a) {
    return a.starts_with("--ntasks-per-node=") || a.starts_with("--nodelist=");
  });
  launch.argv.insert(launch.argv.begin() + 1, "--distribution=arbitrary");
  launch.env["SLURM_HOSTFILE"] = hostfile;
  for (std::string& a : launch.argv) {
    if (a.starts_with("--export=")) a += ",SLURM_HOSTFILE";
  }
}

}  // namespace colltune
