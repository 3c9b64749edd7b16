#include "core/nccl_version.hpp"

#include <fmt/format.h>

namespace colltune {

std::string nccl_version_text(int code) {
  // NCCL_VERSION(2, 9, 0) is 20900; the old scheme tops out at 2.8.x = 28xx.
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, (code / 100) % 10, code % 100);
}

std::optional<std::string> nccl_below_floor(int code) {
  if (code >= kNcclFloorCode) return std::nullopt;
  return fmt::format(
      "NCCL {} (the libnccl.so this process loaded) is older than {}, the oldest colltune runs "
      "on (it asks NCCL with ncclGroupSimulateEnd, which came in 2.22); allowed: NCCL 2.22.3 or "
      "newer first on LD_LIBRARY_PATH",
      nccl_version_text(code), nccl_version_text(kNcclFloorCode));
}

}  // namespace colltune
