#include "backends/nccl/nccl_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>

namespace colltune {
namespace {

// As NCCL's ncclLoadParam reads an integer variable: strtoll base 0, unset or empty is absent, an
// out-of-range value falls back to the default (absent); trailing text is ignored, as there;
// then narrowed to int as envConfigOverride does (init.cc ~1634).
std::optional<long long> nccl_integer(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  errno = 0;
  const long long value = std::strtoll(text, nullptr, 0);
  if (errno != 0) return std::nullopt;
  return static_cast<int>(value);  // NCCL keeps its parameters in an int: 2^32 reads as 0
}

constexpr int kMaxCgaClusterSize = 8;  // init.cc NCCL_MAX_CGA_CLUSTER_SIZE
constexpr int kMaxChannels = 64;       // device.h MAXCHANNELS

std::string shown(int value) { return value >= 0 ? std::to_string(value) : "default"; }

}  // namespace

NcclEffectiveConfig effective_nccl_config(const BackendOptions& options,
                                          const std::function<const char*(const char*)>& getenv) {
  NcclEffectiveConfig out;
  int blocking = options.nccl_blocking, cga = options.cga_cluster_size;
  int min_ctas = options.min_ctas, max_ctas = options.max_ctas;
  std::string net = options.net_name;
  const auto won = [&](const char* variable, const char* text, const std::string& flag,
                       const std::string& over) {
    out.from_environment.push_back(
        fmt::format("{}={} (over {})", variable, text,
                    over == "default" ? "NCCL's default" : flag + " " + over));
  };
  if (const auto v = nccl_integer(getenv("NCCL_COMM_BLOCKING")); v && (*v == 0 || *v == 1)) {
    won("NCCL_COMM_BLOCKING", getenv("NCCL_COMM_BLOCKING"), "--nccl-blocking", shown(blocking));
    blocking = static_cast<int>(*v);
  }
  if (const auto v = nccl_integer(getenv("NCCL_CGA_CLUSTER_SIZE")); v && *v >= 0) {
    won("NCCL_CGA_CLUSTER_SIZE", getenv("NCCL_CGA_CLUSTER_SIZE"), "--cga-cluster-size", shown(cga));
    cga = static_cast<int>(std::min<long long>(*v, kMaxCgaClusterSize));
  }
  if (const auto v = nccl_integer(getenv("NCCL_MIN_CTAS")); v && *v > 0) {
    won("NCCL_MIN_CTAS", getenv("NCCL_MIN_CTAS"), "--min-ctas", shown(min_ctas));
    min_ctas = static_cast<int>(std::min<long long>(*v, kMaxChannels));
  }
  if (const auto v = nccl_integer(getenv("NCCL_MAX_CTAS")); v && *v > 0) {
    won("NCCL_MAX_CTAS", getenv("NCCL_MAX_CTAS"), "--max-ctas", shown(max_ctas));
    max_ctas = static_cast<int>(std::min<long long>(*v, kMaxChannels));
  }
  if (const char* v = getenv("NCCL_NET"); v != nullptr) {
    won("NCCL_NET", v, "--net-name", net.empty() ? "default" : net);
    net = v;
  }
  min_ctas = std::min(min_ctas, kMaxChannels);
  max_ctas = std::min(max_ctas, kMaxChannels);
  // After the environment, NCCL lowers min to max (init.cc ~1770); --min-ctas above --max-ctas
  // never gets here (run options refuse it, as NCCL's init would).
  if (min_ctas >= 0 && max_ctas >= 0 && min_ctas > max_ctas) min_ctas = max_ctas;
  out.blocking = blocking != 0;
  out.settings = {{"nccl_blocking", shown(blocking)},
                  {"cga_cluster_size", shown(cga)},
                  {"min_ctas", shown(min_ctas)},
                  {"max_ctas", shown(max_ctas)},
                  {"net_name", net.empty() ? (getenv("NCCL_NET") ? "\"\"" : "default") : net}};
  return out;
}

}  // namespace colltune
