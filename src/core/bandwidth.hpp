#pragma once
// Bandwidth by the nccl-tests formulas (GB = 1e9 bytes) and OSU's for point-to-point.

#include "core/collective.hpp"

namespace colltune {

struct Bandwidth {
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};

// Bus bandwidth over algorithm bandwidth for `kind` on `nranks` ranks.
double bus_factor(CollKind kind, int nranks);

// Bytes that one timed op moves for algbw: op_bytes, times the window for kUniBw and twice the
// window for kBiBw (OSU's bw and bibw).
double algbw_bytes(const Collective& c, int nranks);

// `op_seconds` is the time of one op (for pingpong: half a round trip).
Bandwidth bandwidth(const Collective& c, int nranks, double op_seconds);

}  // namespace colltune
