#pragma once
// What a communicator really runs with: NCCL 2.28 lets environment variables override the
// ncclConfig_t colltune passes (init.cc envConfigOverride), so the records say the result.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace colltune {

struct NcclEffectiveConfig {
  // nccl_blocking, cga_cluster_size, min_ctas, max_ctas, net_name: a number, a name or "default".
  std::map<std::string, std::string> settings;
  // One entry per variable that won over the command line or NCCL's default, as
  // "NCCL_COMM_BLOCKING=0 (over --nccl-blocking 1)"; empty when none did.
  std::vector<std::string> from_environment;
  bool blocking = true;  // NCCL's default is blocking
};

// Pure: `getenv` is the environment NCCL reads (std::getenv in the backend, a map in tests).
// Every rank calls it with its own environment.
NcclEffectiveConfig effective_nccl_config(const BackendOptions& options,
                                          const std::function<const char*(const char*)>& getenv);

}  // namespace colltune
