#pragma once
// InfiniBand ports as the kernel shows them under /sys/class/infiniband.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace colltune {

struct IbPort {
  std::string device;  // mlx5_0
  int port = 1;
  std::string state;       // "4: ACTIVE"
  std::string rate;        // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // InfiniBand, Ethernet (RoCE)
  // ports/N/counters/*: symbol_error, link_downed, port_rcv_errors, port_xmit_discards, ...
  std::map<std::string, std::uint64_t> counters;
  bool active() const { return state.find("ACTIVE") != std::string::npos; }
};

// Where the ports are read from: COLLTUNE_IB_SYSFS_ROOT when set, with "%h" replaced by this
// host's name (so one shared file system can hold a fake tree per node, for tests), else
// /sys/class/infiniband.
std::string ib_sysfs_root();

// Every port under `sysfs_root`, counters included; empty when there is no InfiniBand.
std::vector<IbPort> read_ib_ports(const std::string& sysfs_root = ib_sysfs_root());

nlohmann::json to_json(const std::vector<IbPort>& ports);
// Ports back from to_json's form; fields missing stay empty.
std::vector<IbPort> ib_ports_from_json(const nlohmann::json& j);

// The port's rate in Gb/s from its text ("200 Gb/sec (4X HDR)" -> 200); 0 when unreadable.
double rate_gbps(const IbPort& port);

}  // namespace colltune
