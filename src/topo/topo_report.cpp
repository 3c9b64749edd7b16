#include "topo/topo_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace colltune {
namespace {

nlohmann::json pci_json(const std::vector<PciInfo>& devices) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : devices) {
    out.push_back({{"kind", d.kind},
                   {"busid", d.busid},
                   {"names", d.names},
                   {"model", d.model},
                   {"numa", d.numa}});
  }
  return out;
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes >= (1ULL << 30))
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30));
  if (bytes >= (1ULL << 20)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

}  // namespace

nlohmann::json to_json(const TopoReport& r) {
  const TopologySummary& t = r.topology;
  nlohmann::json numa = nlohmann::json::array();
  for (const auto& n : t.numa)
    numa.push_back({{"os_index", n.os_index}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}});
  nlohmann::json caches = nlohmann::json::array();
  for (const auto& c : t.caches)
    caches.push_back({{"level", c.level}, {"size_bytes", c.size_bytes}, {"count", c.count}});
  return {{"host", r.host},
          {"packages", t.packages},
          {"numa_nodes", numa},
          {"cores", t.cores},
          {"pus", t.pus},
          {"caches", caches},
          {"gpus", pci_json(t.gpus)},
          {"nics", pci_json(t.nics)},
          {"ib_ports", to_json(r.ib_ports)},
          {"gpu_links",
           {{"available", r.gpu_links.available},
            {"why", r.gpu_links.why},
            {"gpus", r.gpu_links.gpus},
            {"matrix", r.gpu_links.matrix}}},
          {"ceilings", to_json(r.ceilings)},
          // Why device copy ceilings are missing ("" when none is): a wheel-only NCCL has no
          // CUDA runtime to copy with, and a reader should say so, not print "n/a".
          {"device_ceilings_absent", r.device_ceilings_absent}};
}

std::string to_text(const TopoReport& r) {
  const TopologySummary& t = r.topology;
  std::string out = fmt::format("host {}: {} package(s), {} NUMA node(s), {} core(s), {} PU(s)\n",
                                r.host, t.packages, t.numa.size(), t.cores, t.pus);
  for (const auto& n : t.numa) {
    out += fmt::format("  NUMA {}: cpus {}, {}\n", n.os_index, n.cpus, bytes_text(n.memory_bytes));
  }
  for (const auto& c : t.caches) {
    out += fmt::format("  L{} cache: {} x {}\n", c.level, c.count, bytes_text(c.size_bytes));
  }
  const auto devices = [&](const char* what, const std::vector<PciInfo>& list) {
    if (list.empty()) {
      out += fmt::format("{}: none found\n", what);
      return;
    }
    out += fmt::format("{}:\n", what);
    for (const auto& d : list) {
      out += fmt::format("  {} {} {} ({}), NUMA {}\n", d.busid, d.kind,
                         d.names.empty() ? "-" : d.names, d.model,
                         d.numa >= 0 ? std::to_string(d.numa) : "unknown");
    }
  };
  devices("GPUs (PCI)", t.gpus);
  devices("NICs (PCI)", t.nics);
  if (r.ib_ports.empty()) {
    out += "InfiniBand ports: none (no /sys/class/infiniband)\n";
  } else {
    out += "InfiniBand ports:\n";
    for (const auto& p : r.ib_ports) {
      out += fmt::format("  {} port {}: {}, {}, {}{}\n", p.device, p.port, p.state, p.rate,
                         p.link_layer, p.active() ? "" : "  <- not active");
    }
  }
  if (!r.gpu_links.available) {
    out += fmt::format("GPU links: none ({})\n", r.gpu_links.why);
  } else {
    out += "GPU links (NV = NVLink; PIX, PXB, PHB, NODE, SYS as nvidia-smi topo -m):\n       ";
    for (std::size_t j = 0; j < r.gpu_links.matrix.size(); ++j) {
      out += fmt::format("{:>6}", fmt::format("GPU{}", j));
    }
    out += "\n";
    for (std::size_t i = 0; i < r.gpu_links.matrix.size(); ++i) {
      out += fmt::format("  GPU{:<2}", i);
      for (const auto& cell : r.gpu_links.matrix[i]) out += fmt::format("{:>6}", cell);
      out += fmt::format("   {}\n", r.gpu_links.gpus[i]);
    }
  }
  if (!r.device_ceilings_absent.empty()) {
    const bool some = std::any_of(r.ceilings.begin(), r.ceilings.end(),
                                  [](const Ceiling& c) { return c.kind == "device_memcpy"; });
    out += fmt::format("device copy ceilings: {} ({})\n", some ? "incomplete" : "none",
                       r.device_ceilings_absent);
  }
  for (const auto& c : r.ceilings) {
    out += fmt::format("ceiling {} NUMA {}: {:.2f} GB/s ({})\n", c.kind, c.numa, c.gbps, c.method);
  }
  return out;
}

}  // namespace colltune
