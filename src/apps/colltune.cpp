// colltune: one binary, one subcommand per job. main is the only catch site (DESIGN.md 6).

#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/health_command.hpp"
#include "apps/help_topics.hpp"
#include "apps/history_command.hpp"
#include "apps/import_command.hpp"
#include "apps/push_command.hpp"
#include "apps/report_commands.hpp"
#include "apps/run_command.hpp"
#include "apps/run_context.hpp"
#include "apps/sweep_command.hpp"
#include "apps/topo_command.hpp"
#include "apps/verify_command.hpp"
#include "backends/registry.hpp"
#include "comm/mpi_world.hpp"
#include "core/errors.hpp"

namespace {

constexpr const char* kUsage = R"(colltune: benchmark and tune collective communication

usage: colltune run [options]     measure collectives on the launched ranks (see run --help)
       colltune sweep [SPEC.yaml]  one launch per point of a knob/placement matrix (sweep --help)
       colltune report RESULTS     report.md, report.html and results.csv
       colltune compare BASE CAND  CI gate: exit 1 slower, 3 could not compare (compare --help)
       colltune noise RESULTS...   launch-to-launch spread, for compare --noise-floor
       colltune tune RESULTS --emit nccl-plugin|nccl-tuner|ompi-rules|env|openmetrics
       colltune verify TUNED       the tuned file against the defaults: exit 1 slower somewhere
       colltune health [SPEC] --hosts a,b,c   name the slow or failed node or link (health --help)
       colltune history RUNS...|DIR  change points over time, what changed; --gate for nightly CI
       colltune import LOG... --out STORE   nccl-tests' and OSU's text logs as a store
       colltune push RESULTS --gateway URL  the figures to a Prometheus Pushgateway
       colltune topo [--json] [--ceilings]  topology, InfiniBand ports, copy bandwidth
       colltune help [TOPIC]       the docs page for a task or a command (colltune help lists them)
       colltune --version

Docs, by task then reference (colltune help TOPIC gives a page's path on this machine; every
command's --help ends with its page):
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace colltune;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "-h" || args[0] == "--help") {
      if (launcher_rank() == 0)
        std::fputs((kUsage + topics_table()).c_str(), args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::string backends;
      for (const auto& b : built_backends()) backends += " " + b;
      const bool with_mpi = backends.find(" mpi") != std::string::npos;
      std::printf("colltune %s (%s), backends:%s%s\n", COLLTUNE_VERSION, COLLTUNE_GIT_REVISION,
                  backends.c_str(),
                  with_mpi ? "" : "; built without MPI: single-process runs only (-g N)");
      return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "run") return run_command(&argc, &argv, rest);
    if (args[0] == "sweep") return sweep_command(rest);
    if (args[0] == "report") return report_command(rest);
    if (args[0] == "compare") return compare_command(rest);
    if (args[0] == "tune") return tune_command(rest);
    if (args[0] == "noise") return noise_command(rest);
    if (args[0] == "topo") return topo_command(rest);
    if (args[0] == "verify") return verify_command(rest);
    if (args[0] == "health") return health_command(rest);
    if (args[0] == "history") return history_command(rest);
    if (args[0] == "import") return import_command(rest);
    if (args[0] == "push") return push_command(rest);
    if (args[0] == "help") return help_command(rest);
    throw ConfigError("command: '" + args[0] +
                      "' is not a colltune command; allowed: run sweep report compare tune noise "
                      "verify health history import push topo help");
  } catch (const ConfigError& e) {
    // Every rank sees the same bad input; one line from rank 0, and a clean exit everywhere.
    // Print before MPI_Finalize: once a peer has finalized and exited, mpirun may kill rank 0.
    if (launcher_rank() == 0) std::fprintf(stderr, "colltune: error: %s\n", e.what());
    std::fflush(stderr);
    if (MpiWorld::active()) MpiWorld::finalize();
    return 2;
  } catch (const std::exception& e) {
    if (args[0] != "run") {
      // The driver and the readers are no rank: no rank prefix. Exit 1 means "slower" (compare,
      // history --gate, verify) or "a node is slow" (health): a full disk while writing the JUnit
      // file must not read as either, so whatever stopped the work exits 2.
      std::fprintf(stderr, "colltune: error: %s\n", e.what());
      return 2;
    }
    const std::string& step = current_step();
    std::fprintf(stderr, "colltune: %s: %s%s%s\n", launcher_rank_text().c_str(),
                 step.empty() ? "" : "while measuring ", step.empty() ? "" : (step + ": ").c_str(),
                 e.what());
    std::fflush(stderr);
    // A step past --timeout exits 4, whether the watchdog or the backend's own wait noticed.
    const int code = dynamic_cast<const TimeoutError*>(&e) != nullptr ? 4 : 1;
    if (MpiWorld::active()) MpiWorld::abort(code);
    return code;
  }
}
