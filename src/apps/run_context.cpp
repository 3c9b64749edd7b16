#include "apps/run_context.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "core/cpulist.hpp"
#include "core/environment.hpp"
#include "core/timestamp.hpp"
#include "store/record.hpp"

extern char** environ;

namespace colltune {
namespace {

std::string my_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "unknown";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return format_cpulist(cpus);
}

}  // namespace

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
  c.schema_version = kSchemaVersion;
  c.colltune_version = COLLTUNE_VERSION;
  c.git_revision = COLLTUNE_GIT_REVISION;
  c.backend = comm.backend();
  c.start_time_utc = utc_timestamp();
  c.command_line = argv;
  c.nranks = world.size();
  const auto hosts = world.all_gather(world.host());
  const auto cpus = world.all_gather(my_cpus());
  for (int r = 0; r < world.size(); ++r) {
    const auto& host = hosts[static_cast<std::size_t>(r)];
    if (c.ranks_per_host[host]++ == 0) c.hosts.push_back(host);
    c.placement.push_back({r, host, cpus[static_cast<std::size_t>(r)]});
  }
  c.library_versions = comm.library_versions();
  c.timing = options.policy.timing;
  c.cache = options.policy.cache;
  c.warmup_iters = options.policy.warmup_iters;
  c.iters = options.policy.iters;
  c.repetitions = options.policy.repetitions;
  c.check_rounds = options.policy.check_rounds;
  c.environment = allowed_environment(environ);
  return c;
}

}  // namespace colltune
