#include "health/ib_findings.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sweep/expand.hpp"

namespace colltune {

const std::vector<std::string>& ib_error_counters() {
  static const std::vector<std::string> kCounters{"symbol_error",
                                                  "link_error_recovery",
                                                  "link_downed",
                                                  "port_rcv_errors",
                                                  "port_rcv_remote_physical_errors",
                                                  "port_rcv_switch_relay_errors",
                                                  "port_xmit_discards",
                                                  "port_xmit_constraint_errors",
                                                  "port_rcv_constraint_errors",
                                                  "local_link_integrity_errors",
                                                  "excessive_buffer_overrun_errors",
                                                  "VL15_dropped"};
  return kCounters;
}

std::map<int, std::vector<std::string>> port_findings(
    const std::map<int, std::vector<IbPort>>& before,
    const std::map<int, std::vector<IbPort>>& after) {
  // The fleet's rate: the most common one among active ports (ties: the higher), so a node
  // whose ports trained to a lower width or speed stands out.
  std::map<double, int> rates;
  for (const auto& [node, ports] : before) {
    for (const IbPort& p : ports) {
      if (p.active() && rate_gbps(p) > 0) ++rates[rate_gbps(p)];
    }
  }
  double fleet_rate = 0;
  int most = 0;
  for (const auto& [rate, count] : rates) {
    if (count >= most) {
      most = count;
      fleet_rate = rate;
    }
  }
  std::map<int, std::vector<std::string>> out;
  for (const auto& [node, ports] : before) {
    const auto later = after.find(node);
    for (const IbPort& p : ports) {
      const std::string name = fmt::format("{}/{}", p.device, p.port);
      const IbPort* then = nullptr;
      if (later != after.end()) {
        for (const IbPort& q : later->second) {
          if (q.device == p.device && q.port == p.port) then = &q;
        }
      }
      const IbPort& last = then ? *then : p;
      if (!last.active()) {
        out[node].push_back(fmt::format("{} is {}", name, last.state.empty() ? "?" : last.state));
        continue;
      }
      if (rate_gbps(last) > 0 && rate_gbps(last) < fleet_rate) {
        out[node].push_back(fmt::format("{} runs at {} while most ports run at {:g} Gb/sec", name,
                                        last.rate, fleet_rate));
      }
      if (!then) continue;
      for (const std::string& counter : ib_error_counters()) {
        const auto a = p.counters.find(counter), b = then->counters.find(counter);
        if (a == p.counters.end() || b == then->counters.end() || b->second <= a->second) continue;
        out[node].push_back(
            fmt::format("{} counted {} {} during the check", name, b->second - a->second, counter));
      }
    }
  }
  return out;
}

std::string ports_stage_line(const std::map<int, std::vector<IbPort>>& ports_before) {
  std::size_t with_ports = 0;
  for (const auto& [node, ports] : ports_before) with_ports += !ports.empty();
  return with_ports == 0
             ? std::string("InfiniBand: no ports on any node (nothing to read)")
             : fmt::format("InfiniBand: ports of {} nodes read before and after", with_ports);
}

Launch ib_line_launch(const SweepSpec& spec, const std::vector<std::string>& hosts,
                      const std::string& colltune_path) {
  SweepSpec one_each = spec;
  one_each.hosts = hosts;
  one_each.hostfile.clear();
  Point point;
  point.settings = {{"np", std::to_string(hosts.size())}, {"ranks_per_node", "1"}};
  Launch l = build_launch(one_each, point, colltune_path, "");
  // The launcher's part of the argv ends at the program; topo takes run's place.
  l.argv.resize(static_cast<std::size_t>(std::find(l.argv.begin(), l.argv.end(), colltune_path) -
                                         l.argv.begin() + 1));
  l.argv.insert(l.argv.end(), {"topo", "--ib-line"});
  return l;
}

}  // namespace colltune
