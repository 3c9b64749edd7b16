#include "apps/run_context.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "backends/registry.hpp"
#include "core/cpulist.hpp"
#include "core/environment.hpp"
#include "core/mpi_family.hpp"
#include "core/placement_check.hpp"
#include "core/timestamp.hpp"
#include "knobs/knob_scope.hpp"
#include "topo/ceilings.hpp"
#include "topo/gpu_probe.hpp"
#include "topo/infiniband.hpp"
#include "topo/topology.hpp"

extern char** environ;

namespace colltune {
namespace {

std::vector<int> my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// This process's site for one of its communicator ranks, as one line every process can gather:
// cpus|cores|numa|host_pus|nic_numa|ib|gpu bus id|gpu numa|gpu model.
std::string my_site(const Topology& topo, const DeviceInfo& gpu_info) {
  const std::string& gpu_bus_id = gpu_info.bus_id;
  const std::vector<int> cpus = my_cpus();
  std::vector<int> nic_numa;
  for (const auto& nic : topo.summary().nics) {
    if (nic.kind == "infiniband" && nic.numa >= 0) nic_numa.push_back(nic.numa);
  }
  std::string ib;
  for (const auto& port : read_ib_ports()) {
    ib += fmt::format("{}:{} {} {};", port.device, port.port, port.active() ? "active" : port.state,
                      port.rate);
  }
  std::string gpu_numa;
  for (const auto& gpu : topo.summary().gpus) {
    // CUDA spells bus ids in upper case, hwloc in lower case.
    if (!gpu_bus_id.empty() && strcasecmp(gpu.busid.c_str(), gpu_bus_id.c_str()) == 0 &&
        gpu.numa >= 0) {
      gpu_numa = std::to_string(gpu.numa);
    }
  }
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", format_cpulist(cpus),
                     format_cpulist(topo.cores_of(cpus)), format_cpulist(topo.numa_of(cpus)),
                     topo.pu_count(), format_cpulist(nic_numa), ib, gpu_bus_id, gpu_numa,
                     gpu_info.model);
}

std::vector<std::string> split_fields(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t at = text.find(sep); at != std::string::npos; at = text.find(sep, start)) {
    out.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  out.push_back(text.substr(start));
  return out;
}

// Checks users run by hand before tuning: one library version everywhere, InfiniBand ports up
// and at one rate on every host.
std::vector<std::string> health_warnings(const std::vector<std::string>& versions,
                                         const std::map<std::string, std::string>& ib_by_host) {
  std::vector<std::string> out;
  for (std::size_t r = 1; r < versions.size(); ++r) {
    if (versions[r] != versions[0]) {
      out.push_back(
          fmt::format("rank {} runs other library versions than rank 0: {}", r, versions[r]));
    }
  }
  std::set<std::string> rates;
  for (const auto& [host, ports] : ib_by_host) {
    for (const auto& port : split_fields(ports, ';')) {
      if (port.empty()) continue;
      if (port.find(" active ") == std::string::npos) {
        out.push_back(fmt::format("InfiniBand port {} on {} is not active", port, host));
      }
      rates.insert(port.substr(port.find(' ') + 1));
    }
  }
  if (rates.size() > 1)
    out.push_back(
        fmt::format("InfiniBand ports run at different rates: {}", fmt::join(rates, " / ")));
  return out;
}

// "kind index gbps" lines of this host's ceilings, measured by its first rank only: the
// others would copy at the same time and share its memory bandwidth.
std::string my_ceilings(const MpiWorld& world, const std::vector<std::string>& hosts,
                        const std::string& backend) {
  const auto first = std::find(hosts.begin(), hosts.end(), world.host());
  if (first - hosts.begin() != world.rank()) return "";
  Topology topo;
  std::vector<Ceiling> all = measure_host_ceilings(topo);
  std::string why;
  if (backend == "nccl") {
    for (auto& c : measure_device_ceilings(why)) all.push_back(std::move(c));
  }
  std::string out;
  for (const Ceiling& c : all) out += fmt::format("{} {} {}\n", c.kind, c.numa, c.gbps);
  return out;
}

std::vector<CopyCeiling> gather_ceilings(const MpiWorld& world,
                                         const std::vector<std::string>& hosts,
                                         const std::string& backend) {
  const auto lines = world.all_gather(my_ceilings(world, hosts, backend));
  std::vector<CopyCeiling> out;
  for (std::size_t p = 0; p < lines.size(); ++p) {
    for (const std::string& line : split_fields(lines[p], '\n')) {
      CopyCeiling c;
      c.host = hosts[p];
      char kind[64] = "";
      if (std::sscanf(line.c_str(), "%63s %d %lf", kind, &c.index, &c.gbps) != 3) continue;
      c.kind = kind;
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

bool under_launcher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(var)) return std::atoi(value);
  }
  return 0;
}

std::string launcher_rank_text() {
  char host[256] = "unknown";
  gethostname(host, sizeof(host) - 1);
  return fmt::format("rank {} on {}", launcher_rank(), host);
}

RunContext gather_context(const MpiWorld& world, const Communicator& comm,
                          const RunOptions& options, const std::vector<std::string>& argv) {
  RunContext c;
  c.colltune_version = COLLTUNE_VERSION;
  c.git_revision = COLLTUNE_GIT_REVISION;
  c.backend = comm.backend();
  c.start_time_utc = utc_timestamp();
  c.command_line = argv;
  c.nranks = comm.nranks();
  c.gpus_per_process = options.backend_options.gpus;
  // One site per communicator rank: a process driving -g GPUs holds that many ranks.
  const Topology topo;
  std::vector<DeviceInfo> devices = comm.devices();
  if (devices.empty()) devices.emplace_back();
  std::string mine;
  for (const auto& device : devices) mine += (mine.empty() ? "" : "\n") + my_site(topo, device);
  const auto hosts = world.all_gather(world.host());
  const auto sites = world.all_gather(mine);
  std::map<std::string, std::string> ib_by_host;
  for (int p = 0; p < world.size(); ++p) {
    const auto& host = hosts[static_cast<std::size_t>(p)];
    for (const auto& site : split_fields(sites[static_cast<std::size_t>(p)], '\n')) {
      if (c.ranks_per_host[host]++ == 0) c.hosts.push_back(host);
      const auto f = split_fields(site, '|');
      const int rank = static_cast<int>(c.placement.size());
      c.placement.push_back(
          {rank, host, f[0], f[1], f[2], std::atoi(f[3].c_str()), f[4], f[6], f[7], f[8]});
      ib_by_host[host] = f[5];
    }
  }
  c.library_versions = comm.library_versions();
  if (const auto mpi = c.library_versions.find("mpi"); mpi != c.library_versions.end()) {
    if (const auto identity = identify_mpi_library(mpi->second)) {
      c.mpi_family = identity->family;
      c.mpi_version = identity->version;
    }
  }
  c.backend_settings = comm.settings();
  std::vector<std::string> versions;
  for (const auto& [lib, version] : c.library_versions) {
    // Each rank drives its own GPU; only the libraries must agree.
    if (lib != "gpu") versions.push_back(lib + " " + version);
  }
  const auto all_versions = world.all_gather(fmt::format("{}", fmt::join(versions, "; ")));
  c.warnings = health_warnings(all_versions, ib_by_host);
  for (auto& w : placement_warnings(c.placement, {})) c.warnings.push_back(std::move(w));
  std::vector<int> floating;
  for (const auto& p : c.placement)
    if (!is_bound(p)) floating.push_back(p.rank);
  if (options.interleaved.size() >= 2 && !floating.empty()) {
    // Measured here (np 4 on 2 cores, where Open MPI binds nothing): the sd of an algorithm
    // pair's log time ratio between launches was 0.200 floating and 0.037 bound at 512 B, 0.127
    // and 0.033 at 1 MiB, where floating launches ordered the pair both ways.
    c.warnings.push_back(fmt::format(
        "rank(s) {} float (not bound to CPUs): --interleave compares the settings under this "
        "launch's placement, and the next launch places the ranks afresh, which can reorder "
        "them; bind them (mpirun --bind-to core, or --bind-to core:overload-allowed with more "
        "ranks than cores)",
        fmt::join(floating, ",")));
  }
  if (c.backend == "mpi") {
    // A forced coll/tuned algorithm is moot where another component serves the collective.
    std::vector<std::string> knobs;
    for (const auto& [name, value] : allowed_environment(environ)) knobs.push_back(name);
    for (const auto& setting : options.interleaved)
      for (const auto& [name, value] : setting) knobs.push_back(name);
    std::vector<std::string> measured;
    for (const CollKind kind : options.colls) measured.emplace_back(name(kind));
    for (auto& w : moot_tuned_algorithm_warnings(mpi_coll_components_here(), knobs, measured))
      c.warnings.push_back(std::move(w));
  }
  c.timing = options.policy.timing;
  c.span = options.policy.span;
  c.cache = options.policy.cache;
  c.rank_reduction = options.policy.rank_reduction;
  c.min_bytes = options.min_bytes;
  c.max_bytes = options.max_bytes;
  c.step_factor = options.step_factor;
  c.step_bytes = options.step_bytes;
  c.warmup_iters = options.policy.warmup_iters;
  c.iters = options.policy.iters;
  c.repetitions = options.policy.repetitions;
  c.race = options.policy.race;
  c.min_sample_seconds = options.policy.adaptive_iters ? options.policy.min_sample_seconds : 0;
  c.check_rounds = options.policy.check_rounds;
  c.environment = allowed_environment(environ);
  if (options.copy_ceiling) c.copy_ceilings = gather_ceilings(world, hosts, c.backend);
  return c;
}

}  // namespace colltune
