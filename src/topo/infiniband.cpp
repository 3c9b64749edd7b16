#include "topo/infiniband.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
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

std::string ib_sysfs_root() {
  const char* root = std::getenv("COLLTUNE_IB_SYSFS_ROOT");
  if (root == nullptr || *root == '\0') return "/sys/class/infiniband";
  std::string path = root;
  char host[256] = "unknown";
  gethostname(host, sizeof(host) - 1);
  for (std::size_t at; (at = path.find("%h")) != std::string::npos;) path.replace(at, 2, host);
  return path;
}

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
      std::error_code none;
      for (const auto& counter : fs::directory_iterator(port.path() / "counters", none)) {
        const std::string text = first_line(counter.path());
        std::uint64_t value = 0;
        const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
        // Unreadable counters (permissions, a driver's "N/A") are left out, not read as 0.
        if (err == std::errc() && end != text.data()) p.counters[counter.path().filename()] = value;
      }
      ports.push_back(std::move(p));
    }
  }
  std::sort(ports.begin(), ports.end(), [](const IbPort& a, const IbPort& b) {
    return a.device != b.device ? a.device < b.device : a.port < b.port;
  });
  return ports;
}

nlohmann::json to_json(const std::vector<IbPort>& ports) {
  nlohmann::json out = nlohmann::json::array();
  for (const IbPort& p : ports) {
    out.push_back({{"device", p.device},
                   {"port", p.port},
                   {"state", p.state},
                   {"rate", p.rate},
                   {"link_layer", p.link_layer},
                   {"active", p.active()},
                   {"counters", p.counters}});
  }
  return out;
}

std::vector<IbPort> ib_ports_from_json(const nlohmann::json& j) {
  std::vector<IbPort> ports;
  if (!j.is_array()) return ports;
  for (const auto& p : j) {
    if (!p.is_object()) continue;
    IbPort port;
    port.device = p.value("device", "");
    port.port = p.value("port", 1);
    port.state = p.value("state", "");
    port.rate = p.value("rate", "");
    port.link_layer = p.value("link_layer", "");
    if (p.contains("counters") && p.at("counters").is_object()) {
      for (const auto& [name, value] : p.at("counters").items()) {
        if (value.is_number_unsigned()) port.counters[name] = value.get<std::uint64_t>();
      }
    }
    ports.push_back(std::move(port));
  }
  return ports;
}

double rate_gbps(const IbPort& port) {
  double value = 0;
  const auto [end, err] =
      std::from_chars(port.rate.data(), port.rate.data() + port.rate.size(), value);
  return err == std::errc() && end != port.rate.data() ? value : 0;
}

}  // namespace colltune
