#pragma once
// What to run, as plain values: kinds, element types, reduction ops and their names.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

enum class CollKind {
  kAllreduce,
  kAlltoall,
  kAllgather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kSendrecv,
  kPingpong,   // half round trip between rank pairs (OSU latency)
  kUniBw,      // window of non-blocking sends, one ack (OSU bw)
  kBiBw,       // windows both ways at once (OSU bibw)
  kAlltoallv,  // per-peer counts from an Exchange pattern
  kGather,
  kScatter,
  kBarrier,  // moves no data: one row, 0 bytes
};

// In nccl-tests' order. Half, bfloat16 and the fp8 formats exist on the NCCL backend only.
enum class DType {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kHalf,
  kFloat,
  kDouble,
  kBFloat16,
  kFp8E4M3,
  kFp8E5M2,
};

enum class ReduceOp { kSum, kProd, kMax, kMin, kAvg, kNone };  // avg: NCCL only

// How alltoallv's per-peer counts are drawn (core/exchange.hpp). Every rank sends the same total;
// the pattern decides how it splits over destinations.
enum class ExchangeKind {
  kUniform,  // equal counts: alltoall
  kRandom,   // per (source, destination) weights uniform in [1, parameter]: max/min <= parameter
  kZipf,     // destination at popularity rank k gets weight 1 / (k + 1)^parameter (MoE routing)
  kHot,      // one destination gets parameter times what each other one gets
};

struct Exchange {
  ExchangeKind kind = ExchangeKind::kUniform;
  double parameter = 0;    // random: max/min ratio >= 1; zipf: skew s >= 0; hot: factor k >= 1
  std::uint64_t seed = 1;  // draws the random weights, the zipf popularity order, the hot rank
};

// One operation to measure. `count` is the element count in nccl-tests' sense: the whole buffer
// for allreduce/broadcast/reduce/sendrecv and point-to-point, per peer for allgather,
// reduce_scatter, alltoall, gather and scatter, the mean per peer for alltoallv; 0 for barrier.
struct Collective {
  CollKind kind = CollKind::kAllreduce;
  DType dtype = DType::kFloat;
  ReduceOp op = ReduceOp::kSum;
  std::size_t count = 0;
  bool in_place = false;
  int root = 0;
  int window = 64;    // messages in flight per op for kUniBw/kBiBw
  Exchange exchange;  // kAlltoallv only
};

const std::vector<CollKind>& all_coll_kinds();
const std::vector<DType>& all_dtypes();
const std::vector<ReduceOp>& all_reduce_ops();  // without kNone

std::string_view name(CollKind kind);
std::string_view name(DType dtype);
std::string_view name(ReduceOp op);
std::optional<CollKind> parse_coll_kind(std::string_view text);
std::optional<DType> parse_dtype(std::string_view text);
std::optional<ReduceOp> parse_reduce_op(std::string_view text);

std::size_t element_bytes(DType dtype);
bool is_signed(DType dtype);
bool is_floating(DType dtype);
int mantissa_bits(DType dtype);         // stored fraction bits of a floating type; 0 for integers
bool is_reduction(CollKind kind);       // takes a ReduceOp
bool is_point_to_point(CollKind kind);  // between rank pairs, needs an even rank count
bool has_root(CollKind kind);
bool moves_data(CollKind kind);  // false for barrier

// How many `count`-sized blocks the nccl-tests byte count of `kind` spans: nranks for
// allgather, reduce_scatter, alltoall(v), gather and scatter, else 1.
std::size_t blocks_per_op(CollKind kind, int nranks);

// Bytes of one op in nccl-tests' convention (the "size" column).
std::size_t op_bytes(const Collective& c, int nranks);

}  // namespace colltune
