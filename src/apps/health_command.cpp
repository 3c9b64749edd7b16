#include "apps/health_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "apps/help_format.hpp"
#include "core/ascii_case.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/host_name.hpp"
#include "core/regular_file.hpp"
#include "core/timestamp.hpp"
#include "health/health_args.hpp"
#include "health/health_report.hpp"
#include "health/switch_layout.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "sweep/dialect.hpp"
#include "sweep/driver.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {
namespace fs = std::filesystem;
namespace {

// Each host's leaf switch from Slurm's topology.conf at `path`; every host must have one.
std::vector<std::string> switches_of(const std::vector<std::string>& hosts,
                                     const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw ConfigError(fmt::format(
        "--topology: '{}' cannot be read; allowed: a readable Slurm topology.conf", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::map<std::string, std::string> leaf = read_topology_conf(text.str(), path);
  std::vector<std::string> out;
  for (const std::string& host : hosts) {
    const auto it = leaf.find(host);
    if (it == leaf.end()) {
      throw ConfigError(fmt::format(
          "--topology: {} puts {} under no switch; allowed: a topology.conf whose SwitchName "
          "lines' Nodes= name every host checked",
          path, host));
    }
    out.push_back(it->second);
  }
  return out;
}

struct HealthArgs {
  std::string spec_path, hosts, hostfile, json_path, drain_path, topology_path,
      results_root = "results";
  std::string large = "1M";
};

std::vector<std::string> split_hosts(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char ch : text + ",") {
    if (ch == ',' || ch == ' ' || ch == '\n' || ch == '\t') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += ch;
    }
  }
  return out;
}

// A hostfile as Open MPI reads it: a host per line, "slots=N" and the like after it, # comments.
std::vector<std::string> read_hostfile(const std::string& path) {
  if (const std::string problem = not_regular_file(path); !problem.empty())
    throw ConfigError(fmt::format("--hostfile: '{}' {}", path, problem));
  std::ifstream in(path);
  if (!in) {
    throw ConfigError(
        fmt::format("--hostfile: '{}' cannot be read; allowed: a readable file "
                    "with one host per line",
                    path));
  }
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (words >> host) hosts.push_back(host);
  }
  return hosts;
}

// Inside a Slurm allocation: its nodes, as `scontrol show hostnames` expands the list.
std::vector<std::string> allocation_hosts() {
  const char* list = std::getenv("SLURM_JOB_NODELIST");
  if (list == nullptr || *list == '\0') return {};
  char log[] = "/tmp/colltune-health-hosts-XXXXXX";
  const int fd = ::mkstemp(log);
  if (fd < 0) return {};
  ::close(fd);
  Launch l{{"scontrol", "show", "hostnames", list}, {}};
  SuperviseOptions o;
  o.limit_seconds = 30;
  const LaunchOutcome out = run_supervised(l, log, o);
  std::vector<std::string> hosts =
      out.status == LaunchStatus::kDone ? read_hostfile(log) : std::vector<std::string>{};
  std::remove(log);
  if (hosts.empty()) {
    throw ConfigError(
        fmt::format("SLURM_JOB_NODELIST: '{}' could not be expanded with scontrol "
                    "show hostnames; allowed: --hosts or --hostfile instead",
                    list));
  }
  return hosts;
}

// srun refuses a step with more tasks on a node than the allocation grants it CPUs ("More
// processors requested than permitted"), on every launch alike: say so before the first.
void check_allocation_cpus(const HealthOptions& o) {
  const char* granted = std::getenv("SLURM_JOB_CPUS_PER_NODE");
  if (o.spec.launcher != LauncherKind::kSrun || granted == nullptr) return;
  for (const std::string& word : o.spec.launcher_args) {
    if (word == "--overcommit" || word == "-O") return;
  }
  const std::optional<int> fewest = fewest_allocated_cpus(granted);
  const bool alone = o.alone == "on";
  const int wanted = alone ? std::max(o.node_ranks, o.ranks_per_node) : o.ranks_per_node;
  if (!fewest || *fewest >= wanted) return;
  throw ConfigError(fmt::format(
      "{}: {} ranks a node, but the Slurm allocation grants {} CPU(s) on a node "
      "(SLURM_JOB_CPUS_PER_NODE={}); allowed: at most {}, or an allocation with --exclusive or "
      "--ntasks-per-node={}{}",
      alone && o.node_ranks >= o.ranks_per_node ? "--node-ranks" : "--ranks-per-node", wanted,
      *fewest, granted, *fewest, wanted, alone ? ", or --alone off" : ""));
}

void check_hosts(const std::vector<std::string>& hosts, const std::string& from) {
  std::map<std::string, std::string> seen;  // lower case -> as given: DNS names ignore case
  for (const std::string& h : hosts) {
    if (!is_host_name(h)) {
      throw ConfigError(
          fmt::format("{}: host '{}' is not a host name; allowed: letters, digits, "
                      "'-', '.', '_', starting with a letter or digit",
                      from, h));
    }
    const auto [first, fresh] = seen.emplace(ascii_lower(h), h);
    if (!fresh) {
      throw ConfigError(fmt::format(
          "{}: host '{}' is listed twice{}; allowed: each node once (names ignore case)", from, h,
          first->second == h ? "" : fmt::format(" (as '{}')", first->second)));
    }
  }
  if (hosts.size() < 2) {
    throw ConfigError(
        fmt::format("{}: {} host{} ({}); allowed: 2 or more nodes (health holds each "
                    "against the others)",
                    from, hosts.size(), hosts.size() == 1 ? "" : "s", fmt::join(hosts, ",")));
  }
}

std::uint64_t parse_bytes(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  std::string unit(end);
  const double scale = unit.empty() || unit == "B"   ? 1
                       : unit == "K" || unit == "KB" ? 1024.0
                       : unit == "M" || unit == "MB" ? 1048576.0
                       : unit == "G" || unit == "GB" ? 1073741824.0
                                                     : 0;
  const double bytes = v * scale;
  if (!(bytes >= 1024 && bytes <= 1073741824.0)) {
    throw ConfigError(fmt::format("{}: '{}' is not allowed; allowed: 1K to 1G", flag, text));
  }
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace

int health_command(const std::vector<std::string>& args) {
  HealthArgs a;
  HealthOptions o;
  CLI::App app(
      "colltune health: the slow or failed node or link of a cluster, held against the "
      "fleet itself",
      "colltune health");
  use_colltune_help(app,
                    "Exit codes: 0 all ok; 1 some node or link slow or failed; 2 bad input "
                    "(before any launch); 3 could not check (fewer than 2 nodes judged, the "
                    "budget spent first).");
  app.add_option("spec", a.spec_path,
                 "a sweep spec whose launch keys to use (launcher, "
                 "launcher_args, env, hosts)");
  app.add_option("--hosts", a.hosts,
                 "the nodes, comma-separated (default: the spec's hosts, or "
                 "the Slurm allocation's nodes)");
  app.add_option("--hostfile", a.hostfile, "a file with one node per line");
  app.add_option("--backend", o.backend, "mpi or nccl (default mpi)");
  app.add_option("--ranks-per-node", o.ranks_per_node, "ranks on each node (default 1)")
      ->check(CLI::Range(1, 256));
  std::string alone = "auto";
  app.add_option("--alone", alone,
                 "stage 1, each node alone: on, off, or auto (default: on; with a launch per "
                 "node, on up to 64 nodes)");
  app.add_option("--alone-launch", o.alone_launch,
                 "stage 1's launches: one (every node at once, each its own communicator; "
                 "default with --backend mpi) or per-node (one after another; NCCL's default)");
  int node_ranks = 0;
  app.add_option("--node-ranks", node_ranks,
                 "stage 1's ranks on each node alone (default: --ranks-per-node, at least 2 with "
                 "--backend mpi; on NCCL give the node's GPU count)")
      ->check(CLI::Range(1, 256));
  app.add_option("--bind-to", o.bind_to, "the launcher's binding (default: its own)");
  app.add_option("--large", a.large,
                 "the size of bw, bibw and the all-nodes collectives "
                 "(default 1M)");
  app.add_option("--window", o.window, "bw/bibw messages in flight (default 8)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--passes", o.passes, "launches of every node alone and every pair (default 2)")
      ->check(CLI::Range(2, 20));
  app.add_option("--max-passes", o.max_passes,
                 "launches of a node or pair the first passes left undecided (default 4)")
      ->check(CLI::Range(2, 50));
  app.add_option("--budget", o.budget_seconds, "seconds for the whole check (default 900)")
      ->check(CLI::Range(1.0, 1e6));
  app.add_option("--launch-timeout", o.launch_timeout_seconds,
                 "seconds one launch may take before it is ended as hung (default 60)")
      ->check(CLI::Range(5.0, 1e5));
  app.add_option("--min-effect", o.rule.min_effect,
                 "the least slowdown called slow, as a fraction (default 0.15)")
      ->check(CLI::Range(0.01, 0.9));
  app.add_option(
      "--confirm", o.confirm,
      "pair what the first passes found slow or failed again before naming it: on or off "
      "(default on)");
  app.add_option("--matchings", o.matchings, "random perfect matchings beyond 32 nodes (default 3)")
      ->check(CLI::Range(1, 64));
  app.add_option("--seed", o.seed,
                 "the matchings' seed: the same seed draws the same pairs (default 1); another "
                 "seed measures other links");
  app.add_option("--topology", a.topology_path,
                 "Slurm's topology.conf: each node's leaf switch, so that slow links gathering at "
                 "a switch name its uplinks");
  app.add_option("--json", a.json_path, "nodes, pairs, stages, figures and verdicts");
  app.add_option("--drain", a.drain_path, "one scontrol update line per bad node");
  app.add_option("--results", a.results_root, "where the check's store goes (default results)");
  if (parse_or_help(app, args, "health")) return 0;
  if (o.backend != "mpi" && o.backend != "nccl") {
    throw ConfigError(fmt::format("--backend: '{}' is not allowed; allowed: mpi nccl", o.backend));
  }
  o.max_passes = std::max(o.max_passes, o.passes);
  // One MPI rank alone talks to no one: stage 1 needs two to exercise the node's own transport.
  o.node_ranks =
      node_ranks > 0 ? node_ranks : std::max(o.ranks_per_node, o.backend == "mpi" ? 2 : 1);
  o.large_bytes = parse_bytes(a.large, "--large");
  if (!a.spec_path.empty()) {
    std::ifstream in(a.spec_path);
    if (!in) {
      throw ConfigError(
          fmt::format("spec: '{}' cannot be read; allowed: a readable sweep spec", a.spec_path));
    }
    std::ostringstream text;
    text << in.rdbuf();
    o.spec = parse_spec(text.str(), a.spec_path);
  }
  resolve_dialect(o.spec, a.spec_path.empty() ? "health" : a.spec_path);
  if (o.spec.launcher == LauncherKind::kLocal) {
    throw ConfigError("launcher: local runs one process on this host; allowed: mpirun srun");
  }
  // Placement is health's own: one or --ranks-per-node ranks on each node, in its order.
  for (const std::string& word : o.spec.launcher_args) {
    for (const char* own : {"--host", "-H", "--hostfile", "--map-by", "--bind-to", "-np", "-n",
                            "--npernode", "--nodelist", "--ntasks", "--cpu-bind"}) {
      if (word == own || word.starts_with(std::string(own) + "=")) {
        throw ConfigError(fmt::format(
            "launcher_args: '{}' conflicts with health's placement (one launch per round of "
            "node pairs); allowed: --ranks-per-node, --bind-to, or launcher_args without it",
            word));
      }
    }
  }
  std::string from;
  if (!a.hosts.empty() && !a.hostfile.empty()) {
    throw ConfigError("--hosts and --hostfile: both given; allowed: one of them");
  }
  if (!a.hosts.empty()) {
    o.hosts = split_hosts(a.hosts);
    from = "--hosts";
  } else if (!a.hostfile.empty()) {
    o.hosts = read_hostfile(a.hostfile);
    from = "--hostfile";
  } else if (!o.spec.hosts.empty()) {
    o.hosts = o.spec.hosts;
    from = a.spec_path + ": hosts";
  } else if (!o.spec.hostfile.empty()) {
    o.hosts = read_hostfile(o.spec.hostfile);
    from = a.spec_path + ": hostfile";
  } else {
    o.hosts = allocation_hosts();
    from = "the Slurm allocation";
    if (o.hosts.empty()) {
      throw ConfigError(
          "hosts: none given; allowed: --hosts a,b,c, --hostfile F, a spec with "
          "hosts, or a Slurm allocation (SLURM_JOB_NODELIST)");
    }
  }
  check_hosts(o.hosts, from);
  if (!a.topology_path.empty()) o.switch_of = switches_of(o.hosts, a.topology_path);
  if (o.confirm != "on" && o.confirm != "off") {
    throw ConfigError(fmt::format("--confirm: '{}' is not allowed; allowed: on off", o.confirm));
  }
  if (alone != "auto" && alone != "on" && alone != "off") {
    throw ConfigError(fmt::format("--alone: '{}' is not allowed; allowed: auto on off", alone));
  }
  if (o.alone_launch != "one" && o.alone_launch != "per-node") {
    throw ConfigError(
        fmt::format("--alone-launch: '{}' is not allowed; allowed: one per-node", o.alone_launch));
  }
  // NCCL's per-host communicators (colltune run --split host) have not yet run on a GPU
  // cluster: asked for, not the default, until scripts/gpu-check.sh has proven them there.
  if (o.backend != "mpi" && app.count("--alone-launch") == 0) o.alone_launch = "per-node";
  o.alone = alone == "off" ? "--alone off"
            : alone == "auto" && o.alone_launch == "per-node" && o.hosts.size() > kAloneAutoMaxNodes
                ? fmt::format("{} nodes: --alone auto runs it up to {}, a launch per node and pass",
                              o.hosts.size(), kAloneAutoMaxNodes)
                : "on";
  // Spec hosts given beside --hosts: a host outside them is not one of the cluster's.
  if (from.starts_with("--") && !o.spec.hosts.empty()) {
    for (const std::string& h : o.hosts) {
      if (std::find(o.spec.hosts.begin(), o.spec.hosts.end(), h) == o.spec.hosts.end()) {
        throw ConfigError(fmt::format("{}: host '{}' is not among the spec's hosts; allowed: {}",
                                      from, h, fmt::join(o.spec.hosts, ",")));
      }
    }
  }
  check_allocation_cpus(o);
  const std::size_t rounds = pair_rounds(static_cast<int>(o.hosts.size()), o.matchings, 1).size();
  // Every launch reserves its timeout before it starts: a budget must hold one pass of pairs.
  const double stage_seconds = static_cast<double>(rounds) * o.launch_timeout_seconds;
  if (o.budget_seconds < stage_seconds) {
    throw ConfigError(fmt::format(
        "--budget: {:g} s is too small for one pass of node pairs ({} launches x --launch-timeout "
        "{:g} s); allowed: {:g} s or more, or a smaller --launch-timeout",
        o.budget_seconds, rounds, o.launch_timeout_seconds, stage_seconds));
  }
  if (!a.json_path.empty()) check_output_path("--json", a.json_path);
  if (!a.drain_path.empty()) check_output_path("--drain", a.drain_path);
  check_output_directory("--results", a.results_root);
  o.colltune_path = o.spec.colltune_path.empty() ? own_executable_path() : o.spec.colltune_path;
  o.colltune_version = fmt::format("{} ({})", COLLTUNE_VERSION, COLLTUNE_GIT_REVISION);
  o.store_dir = a.results_root + "/" + new_sweep_id("health", a.results_root);
  std::fprintf(stderr, "colltune health: %zu nodes, %zu rounds of pairs x %d passes; store %s\n",
               o.hosts.size(), rounds, o.passes, o.store_dir.c_str());
  const HealthResult r = run_health(o, stderr);
  const std::string text = health_text(r, o.rule);
  const std::string json = dump_json_text(health_json(r, o.rule), 2) + "\n";
  write_file_atomic(o.store_dir + "/health.json", json);
  write_file_atomic(o.store_dir + "/health.txt", text);
  std::fputs(text.c_str(), stdout);
  if (!a.json_path.empty()) write_file_atomic(a.json_path, json);
  if (!a.drain_path.empty()) {
    const std::string drain = drain_lines(r);
    write_file_atomic(a.drain_path, drain);
    if (!drain.empty())
      std::printf("\nDrain lines (%s; colltune runs none):\n%s", a.drain_path.c_str(),
                  drain.c_str());
  }
  std::fprintf(stderr, "colltune health: store %s\n", o.store_dir.c_str());
  if (r.interrupted) return 130;
  return health_exit_code(r);
}

}  // namespace colltune
