#include "apps/topo_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "apps/help_format.hpp"
#include "backends/registry.hpp"
#include "comm/mpi_world.hpp"
#include "core/errors.hpp"
#include "core/mpi_family.hpp"
#include "knobs/knob_scope.hpp"
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

// When a write of the knob takes effect, which says how colltune can race its values.
std::string_view when_read(const AlgorithmKnob& knob) {
  if (knob.switches_per_call) return "every call";
  if (knob.env_name.starts_with("OMPI_MCA_")) return "communicator creation";
  return "MPI_Init";
}

std::string how_raced(const AlgorithmKnob& knob) {
  if (knob.switches_per_call) {
    return "--interleave in one launch (with MPIR_CVAR_DEVICE_COLLECTIVES=none)";
  }
  if (knob.env_name.starts_with("OMPI_MCA_")) {
    return fmt::format("--interleave in one launch (with {}=1)", kDynamicRulesKnob);
  }
  return "a sweep axis, one launch per value";
}

// What `knob` takes: its names, numbered where the MPI takes numbers (Open MPI), or Intel MPI's
// preset id range.
std::string values_text(const AlgorithmKnob& knob) {
  if (knob.highest_id >= knob.lowest_id) {
    return fmt::format("preset ids {}-{}", knob.lowest_id, knob.highest_id);
  }
  if (knob.names.empty()) return "(this MPI's text for them could not be read)";
  std::string text;
  for (std::size_t i = 0; i < knob.names.size(); ++i) {
    if (!text.empty()) text += knob.env_name.starts_with("OMPI_MCA_") ? ", " : " ";
    text += knob.env_name.starts_with("OMPI_MCA_") ? fmt::format("{} {}", i, knob.names[i])
                                                   : knob.names[i];
  }
  return text;
}

// `colltune topo --list-algorithms`: what the MPI this binary is built against offers, read from
// its MPI_T in this one process.
int list_algorithms(bool json) {
  const std::string library = MpiWorld::library_version();
  const auto identity = identify_mpi_library(library);
  const std::vector<AlgorithmKnob> knobs = offered_mpi_algorithms();
  if (json) {
    nlohmann::json out{{"mpi_family", identity ? identity->family : ""},
                       {"mpi_version", identity ? identity->version : ""},
                       {"knobs", nlohmann::json::array()}};
    for (const AlgorithmKnob& knob : knobs) {
      nlohmann::json entry{{"env_name", knob.env_name},
                           {"collective", knob.collective},
                           {"values", knob.names},
                           {"read_at", when_read(knob)}};
      if (knob.highest_id >= knob.lowest_id) {
        entry["preset_ids"] = {knob.lowest_id, knob.highest_id};
      }
      out["knobs"].push_back(std::move(entry));
    }
    std::fputs((dump_json_text(out, 2) + "\n").c_str(), stdout);
    return 0;
  }
  std::printf("# %s: collective algorithm knobs, from its MPI_T\n",
              identity ? identity->text().c_str() : "this MPI");
  if (knobs.empty()) std::printf("# none that colltune knows how to set\n");
  for (const AlgorithmKnob& knob : knobs) {
    std::printf("%-22s %s\n  values: %s\n  read at %s: race it with %s\n", knob.collective.c_str(),
                knob.env_name.c_str(), values_text(knob).c_str(),
                std::string(when_read(knob)).c_str(), how_raced(knob).c_str());
  }
  return 0;
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
  bool list = false;
  app.add_flag("--list-algorithms", list,
               "the collective algorithm knobs of the MPI this colltune is built against, and "
               "their values, from its MPI_T (no launch)");
  if (parse_or_help(app, args, "topo")) return 0;
  if (list) return list_algorithms(json);
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
