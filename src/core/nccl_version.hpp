#pragma once
// NCCL's version code as people read it, and the oldest NCCL colltune runs on. Pure.

#include <optional>
#include <string>

namespace colltune {

// 2.22.3: the first NCCL with ncclGroupSimulateEnd (the skip probe) and ncclTunerPlugin_v3
// (nccl.h.in and nccl_tuner.h at v2.22.3-1; 2.21.5 has neither). Older NCCLs died with "symbol
// lookup error" at the first probe.
inline constexpr int kNcclFloorCode = 22203;

// "2.28.9" from ncclGetVersion's code: major * 10000 + minor * 100 + patch from 2.9 on,
// major * 1000 + minor * 100 + patch before.
std::string nccl_version_text(int code);

// "NCCL 2.21.5 is older than 2.22.3, the oldest colltune runs on ..." for a code below the floor;
// nullopt at or above it.
std::optional<std::string> nccl_below_floor(int code);

}  // namespace colltune
