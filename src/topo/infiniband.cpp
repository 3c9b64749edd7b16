#include "topo/infiniband.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace colltune {
namespace {

std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::vector<IbPort> read_ib_ports(const std::string& sysfs_root) {
  namespace fs = std::filesystem;
  std::vector<IbPort> ports;
  std::error_code ec;
  for (const auto& device : fs::directory_iterator(sysfs_root, ec)) {
    for (const auto& port : fs::directory_iterator(device.path() / "ports", ec)) {
      IbPort p;
      p.device = device.path().filename();
      p.port = std::atoi(port.path().filename().c_str());
      p.state = first_line(port.path() / "state");
      p.rate = first_line(port.path() / "rate");
      p.link_layer = first_line(port.path() / "link_layer");
      ports.push_back(std::move(p));
    }
  }
  std::sort(ports.begin(), ports.end(), [](const IbPort& a, const IbPort& b) {
    return a.device != b.device ? a.device < b.device : a.port < b.port;
  });
  return ports;
}

}  // namespace colltune
