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
// window for kBiBw (OSU's bw and bibw); for alltoallv the busiest rank's bytes (the larger of
// what it sends and receives), which bound the op's time.
double algbw_bytes(const Collective& c, int nranks);

// Pairs that exchange at once in pingpong, bw and bibw: (r, r + n/2) for r < n/2.
int point_to_point_pairs(int nranks);

// bw and bibw: messages per second over all pairs at once, as osu_mbw_mr counts them (a window
// per pair per op; bibw sends one each way); 0 for other collectives.
double messages_per_second(const Collective& c, int nranks, double op_seconds);

// `op_seconds` is the time of one op (for pingpong: half a round trip).
Bandwidth bandwidth(const Collective& c, int nranks, double op_seconds);

}  // namespace colltune
