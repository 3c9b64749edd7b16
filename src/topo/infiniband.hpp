#pragma once
// InfiniBand ports as the kernel shows them under /sys/class/infiniband.

#include <string>
#include <vector>

namespace colltune {

struct IbPort {
  std::string device;  // mlx5_0
  int port = 1;
  std::string state;       // "4: ACTIVE"
  std::string rate;        // "200 Gb/sec (4X HDR)"
  std::string link_layer;  // InfiniBand, Ethernet (RoCE)
  bool active() const { return state.find("ACTIVE") != std::string::npos; }
};

// Every port under `sysfs_root`; empty when there is no InfiniBand.
std::vector<IbPort> read_ib_ports(const std::string& sysfs_root = "/sys/class/infiniband");

}  // namespace colltune
