#include "core/bandwidth.hpp"

#include "core/exchange.hpp"

namespace colltune {

double bus_factor(CollKind kind, int nranks) {
  const double n = nranks;
  switch (kind) {
    case CollKind::kAllreduce:
      return 2.0 * (n - 1) / n;
    case CollKind::kAllgather:
    case CollKind::kReduceScatter:
    case CollKind::kAlltoall:
    case CollKind::kAlltoallv:
    case CollKind::kGather:
    case CollKind::kScatter:
      return (n - 1) / n;
    default:
      return 1.0;
  }
}

double algbw_bytes(const Collective& c, int nranks) {
  const auto bytes = static_cast<double>(op_bytes(c, nranks));
  switch (c.kind) {
    case CollKind::kUniBw:
      return bytes * c.window;
    case CollKind::kBiBw:
      return 2.0 * bytes * c.window;
    case CollKind::kAlltoallv:
      return static_cast<double>(exchange_totals(c, nranks).busiest * element_bytes(c.dtype));
    default:
      return bytes;
  }
}

int point_to_point_pairs(int nranks) { return nranks / 2; }

double messages_per_second(const Collective& c, int nranks, double op_seconds) {
  if (op_seconds <= 0 || (c.kind != CollKind::kUniBw && c.kind != CollKind::kBiBw)) return 0;
  const double directions = c.kind == CollKind::kBiBw ? 2 : 1;
  return directions * c.window * point_to_point_pairs(nranks) / op_seconds;
}

Bandwidth bandwidth(const Collective& c, int nranks, double op_seconds) {
  Bandwidth bw;
  if (op_seconds <= 0) return bw;
  bw.algbw_gbps = algbw_bytes(c, nranks) / op_seconds / 1e9;
  bw.busbw_gbps = bw.algbw_gbps * bus_factor(c.kind, nranks);
  return bw;
}

}  // namespace colltune
