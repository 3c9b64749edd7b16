#include "apps/topo_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "apps/help_format.hpp"
#include "core/errors.hpp"
#include "store/json_text.hpp"
#include "topo/ceilings.hpp"
#include "topo/gpu_probe.hpp"
#include "topo/topo_report.hpp"

namespace colltune {
namespace {

std::string hostname() {
  char name[256] = "unknown";
  gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace

std::string host_ceilings_json() {
  Topology topo;
  std::vector<Ceiling> all = measure_host_ceilings(topo);
  std::string why;
  for (auto& c : measure_device_ceilings(why)) all.push_back(std::move(c));
  return dump_json_text(nlohmann::json{{"host", hostname()}, {"ceilings", to_json(all)}}, 2) + "\n";
}

int topo_command(const std::vector<std::string>& args) {
  CLI::App app("colltune topo: topology, InfiniBand ports and physical ceilings of this host",
               "colltune topo");
  use_colltune_help(app, "Exit codes: 0 ok; 2 bad input.");
  bool json = false, ceilings = false, ib_line = false;
  app.add_flag("--json", json, "JSON instead of text (default: text)");
  app.add_flag("--ceilings", ceilings,
               "also measure memory copy bandwidth per NUMA node and GPU (default: off; takes "
               "seconds)");
  // colltune health launches this on every node and reads the lines back from the launcher.
  app.add_flag("--ib-line", ib_line,
               "only this host's InfiniBand ports and counters, as one line: colltune-ib JSON");
  if (parse_or_help(app, args, "topo")) return 0;
  if (ib_line) {
    const nlohmann::json line{{"host", hostname()}, {"ports", to_json(read_ib_ports())}};
    std::printf("colltune-ib %s\n", line.dump().c_str());
    return 0;
  }
  Topology topo;
  TopoReport report;
  report.host = hostname();
  report.topology = topo.summary();
  report.ib_ports = read_ib_ports();
  report.gpu_links = probe_gpu_links();
  if (ceilings) {
    report.ceilings = measure_host_ceilings(topo);
    for (auto& c : measure_device_ceilings(report.device_ceilings_absent)) {
      report.ceilings.push_back(std::move(c));
    }
  }
  std::fputs(json ? (dump_json_text(to_json(report), 2) + "\n").c_str() : to_text(report).c_str(),
             stdout);
  return 0;
}

}  // namespace colltune
