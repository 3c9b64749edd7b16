#include "sweep/dialect.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "sweep/mpi_axis.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {
namespace {

// Intel MPI binds through I_MPI_PIN_DOMAIN (its mpiexec has no -bind-to).
std::optional<std::string> intel_pin_domain(const std::string& bind_to) {
  static const std::map<std::string, std::string> kDomains{
      {"core", "core"}, {"socket", "socket"}, {"package", "socket"}, {"numa", "numa"}};
  const auto it = kDomains.find(bind_to);
  if (it == kDomains.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<std::string> dialect_argv(LaunchDialect dialect, const std::string& program,
                                        const Placement& p, std::map<std::string, std::string>& env,
                                        std::vector<std::string>& argv) {
  if (dialect == LaunchDialect::kOpenMpi) {
    argv = {program, "-np", p.np};
    if (!p.hosts.empty()) {
      std::vector<std::string> slots;
      for (const auto& h : p.hosts)
        slots.push_back(p.ranks_per_node ? h + ":" + *p.ranks_per_node : h);
      argv.insert(argv.end(), {"--host", fmt::format("{}", fmt::join(slots, ","))});
    } else if (!p.hostfile.empty()) {
      argv.insert(argv.end(), {"--hostfile", p.hostfile});
    }
    if (p.ranks_per_node) {
      if (p.map_by) return "ranks_per_node and map_by both set; give one";
      argv.insert(argv.end(), {"--map-by", "ppr:" + *p.ranks_per_node + ":node"});
    } else if (p.map_by) {
      argv.insert(argv.end(), {"--map-by", *p.map_by});
    }
    if (p.bind_to) argv.insert(argv.end(), {"--bind-to", *p.bind_to});
    if (p.rank_by) argv.insert(argv.end(), {"--rank-by", *p.rank_by});
    return std::nullopt;
  }
  // Hydra, MPICH's and Intel's: -n, -hosts, -f, -ppn.
  argv = {program, "-n", p.np};
  if (!p.hosts.empty()) {
    argv.insert(argv.end(), {"-hosts", fmt::format("{}", fmt::join(p.hosts, ","))});
  } else if (!p.hostfile.empty()) {
    argv.insert(argv.end(), {"-f", p.hostfile});
  }
  if (p.ranks_per_node) argv.insert(argv.end(), {"-ppn", *p.ranks_per_node});
  if (p.rank_by) return "rank_by has no Hydra (mpiexec) equivalent; allowed: map_by, bind_to";
  if (dialect == LaunchDialect::kHydra) {
    // Hydra's own object names (hydra's topo_hwloc.c; "board" became "machine" in 2018).
    static const std::vector<std::string> kObjects{"hwthread", "core",    "l1cache",
                                                   "l2cache",  "l3cache", "socket",
                                                   "package",  "numa",    "machine"};
    const auto known = [&](const std::string& v) {
      return std::find(kObjects.begin(), kObjects.end(), v) != kObjects.end();
    };
    if (p.map_by) {
      if (p.ranks_per_node) return "ranks_per_node and map_by both set; give one";
      if (!known(*p.map_by))
        return fmt::format("map_by '{}' has no Hydra -map-by equivalent; allowed with MPICH: {}",
                           *p.map_by, fmt::join(kObjects, " "));
      argv.insert(argv.end(), {"-map-by", *p.map_by});
    }
    if (p.bind_to) {
      if (*p.bind_to != "none" && !known(*p.bind_to))
        return fmt::format(
            "bind_to '{}' has no Hydra -bind-to equivalent; allowed with MPICH: "
            "none {}",
            *p.bind_to, fmt::join(kObjects, " "));
      argv.insert(argv.end(), {"-bind-to", *p.bind_to});
    }
    return std::nullopt;
  }
  // Intel MPI: placement by I_MPI_PIN*; ranks fill each host in turn (-ppn), as map_by slot.
  if (p.map_by && *p.map_by != "slot" && *p.map_by != "core")
    return fmt::format(
        "map_by '{}' has no Intel MPI equivalent here; allowed with Intel MPI: "
        "slot core (ranks fill each host in turn), or ranks_per_node",
        *p.map_by);
  if (p.bind_to) {
    if (*p.bind_to == "none") {
      env["I_MPI_PIN"] = "0";
    } else if (const auto domain = intel_pin_domain(*p.bind_to)) {
      env["I_MPI_PIN"] = "1";
      env["I_MPI_PIN_DOMAIN"] = *domain;
    } else {
      return fmt::format(
          "bind_to '{}' has no I_MPI_PIN_DOMAIN equivalent; allowed with Intel "
          "MPI: none core socket package numa",
          *p.bind_to);
    }
  }
  return std::nullopt;
}

void append_exports(LaunchDialect dialect, const std::map<std::string, std::string>& env,
                    std::vector<std::string>& argv) {
  if (env.empty()) return;
  // Hydra (MPICH's and Intel's) passes mpiexec's whole environment to every rank by default;
  // -genvlist would switch that to only the variables named, and remote ranks would lose PATH,
  // LD_LIBRARY_PATH and the rest. The values are in mpiexec's own environment already.
  if (dialect != LaunchDialect::kOpenMpi) return;
  for (const auto& [key, value] : env) argv.insert(argv.end(), {"-x", key});
}

std::optional<std::string> foreign_launcher_arg(LaunchDialect dialect, const std::string& arg) {
  // Flags one dialect has and the other reads as something else, or refuses.
  static const std::map<std::string, std::string> kOpenMpiOnly{
      {"-x", "Open MPI's export of a variable"},
      {"--rank-by", "Open MPI's ranking"},
      {"--mca", "an Open MPI parameter"},
      {"-mca", "an Open MPI parameter"},
      {"--oversubscribe", "Open MPI's oversubscription"},
      {"--allow-run-as-root", "Open MPI's consent to run as root"},
      {"-npernode", "Open MPI's ranks per node"},
      {"--npernode", "Open MPI's ranks per node"}};
  static const std::map<std::string, std::string> kHydraOnly{
      {"-genv", "Hydra's export of a variable"},
      {"-genvlist", "Hydra's export of variables"},
      {"-genvall", "Hydra's export of every variable"},
      {"-envlist", "Hydra's export of variables"},
      {"-ppn", "Hydra's ranks per node"},
      {"-hosts", "Hydra's host list"}};
  const auto& foreign = dialect == LaunchDialect::kOpenMpi ? kHydraOnly : kOpenMpiOnly;
  const auto it = foreign.find(arg);
  if (it == foreign.end()) return std::nullopt;
  return it->second;
}

void check_launcher_args(const SweepSpec& spec, const std::string& source) {
  // srun's and local's arguments are their own; a launcher not found has no dialect yet, and
  // preflight says it is missing.
  if (spec.launcher == LauncherKind::kMpirun && spec.dialect) {
    const LaunchDialect dialect = *spec.dialect;
    std::vector<std::string> words = spec.launcher_args;
    for (const Axis& axis : spec.axes) {
      if (axis.key != "launcher_args") continue;
      for (const auto& value : axis.values) {
        if (!value) continue;
        for (auto& w : nlohmann::json::parse(*value).get<std::vector<std::string>>())
          words.push_back(std::move(w));
      }
    }
    for (const std::string& word : words) {
      if (const auto meaning = foreign_launcher_arg(dialect, word)) {
        throw ConfigError(fmt::format(
            "{}: launcher_args: '{}' ({}) is not {}'s; allowed: that launcher's own flags ({} "
            "was asked with --version; name another with mpi_family: openmpi, mpich or "
            "intelmpi)",
            source, word, *meaning, dialect == LaunchDialect::kOpenMpi ? "Open MPI" : "Hydra",
            spec.launcher_program));
      }
    }
  }
}

void check_knob_family(const SweepSpec& spec, const std::string& source) {
  // srun: the MPI is not known here; a launcher not found: preflight says so.
  if (spec.launcher != LauncherKind::kMpirun || !spec.dialect) return;
  const LaunchDialect dialect = *spec.dialect;
  // The prefixes each family reads; another family's are ignored by this MPI without a word, so
  // every point would measure the default.
  struct Foreign {
    std::string_view prefix, owner;
  };
  std::vector<Foreign> foreign;
  if (dialect != LaunchDialect::kOpenMpi) foreign.push_back({"OMPI_MCA_", "an Open MPI parameter"});
  if (dialect == LaunchDialect::kOpenMpi)
    foreign.push_back({"MPIR_CVAR_", "an MPICH (or Intel MPI) variable"});
  if (dialect != LaunchDialect::kIntelMpi) foreign.push_back({"I_MPI_", "an Intel MPI variable"});
  const auto check = [&](const std::string& where, const std::string& key) {
    for (const Foreign& f : foreign) {
      if (!key.starts_with(f.prefix)) continue;
      throw ConfigError(fmt::format(
          "{}: {}: {} is {}, but {} --version names {}; allowed: that MPI's own knobs ({}), or a "
          "launcher of the MPI it belongs to",
          source, where, key, f.owner, spec.launcher_program,
          dialect == LaunchDialect::kOpenMpi ? "Open MPI"
          : dialect == LaunchDialect::kHydra ? "MPICH's Hydra"
                                             : "Intel MPI",
          dialect == LaunchDialect::kOpenMpi ? "OMPI_MCA_*"
          : dialect == LaunchDialect::kHydra ? "MPIR_CVAR_*"
                                             : "I_MPI_*, MPIR_CVAR_*"));
    }
  };
  for (const auto& [key, value] : spec.env) check("env", key);
  for (const Axis& axis : spec.axes) check("axes", axis.key);
}

void resolve_dialect(SweepSpec& spec, const std::string& source) {
  for (auto& [name, choice] : spec.mpis) {  // each MPI of the `mpi` axis asked alike
    if (spec.launcher != LauncherKind::kMpirun || choice.dialect) continue;
    SweepSpec under = spec_for_mpi(spec, name);
    resolve_dialect(under, fmt::format("{}: mpis.{}", source, name));
    choice.dialect = under.dialect;
  }
  if (spec.launcher != LauncherKind::kMpirun || spec.dialect) return;
  char path[] = "/tmp/colltune-launcher-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return;
  ::close(fd);
  SuperviseOptions options;
  options.limit_seconds = 30;
  const LaunchOutcome outcome =
      run_supervised(Launch{{spec.launcher_program, "--version"}, {}}, path, options);
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  if (outcome.exit_code == 127) return;  // not there: preflight names it
  if (const auto identity = identify_mpi_launcher(text.str())) {
    spec.dialect = identity->dialect;
    return;
  }
  const std::string said = text.str().substr(0, text.str().find('\n'));
  throw ConfigError(fmt::format(
      "{}: launcher: '{} --version' says '{}', which names no MPI colltune knows; allowed: Open "
      "MPI's mpirun, MPICH's or Intel MPI's mpiexec, or name the family in the spec "
      "(mpi_family: openmpi, mpich or intelmpi)",
      source, spec.launcher_program, said.substr(0, 200)));
}

}  // namespace colltune
