#include "core/collective.hpp"

#include <array>
#include <utility>

namespace colltune {
namespace {

constexpr std::array<std::pair<CollKind, std::string_view>, 14> kCollNames{{
    {CollKind::kAllreduce, "allreduce"},
    {CollKind::kAlltoall, "alltoall"},
    {CollKind::kAllgather, "allgather"},
    {CollKind::kReduceScatter, "reduce_scatter"},
    {CollKind::kBroadcast, "broadcast"},
    {CollKind::kReduce, "reduce"},
    {CollKind::kSendrecv, "sendrecv"},
    {CollKind::kPingpong, "pingpong"},
    {CollKind::kUniBw, "bw"},
    {CollKind::kBiBw, "bibw"},
    {CollKind::kAlltoallv, "alltoallv"},
    {CollKind::kGather, "gather"},
    {CollKind::kScatter, "scatter"},
    {CollKind::kBarrier, "barrier"},
}};

constexpr std::array<std::pair<DType, std::string_view>, 12> kDTypeNames{{
    {DType::kInt8, "int8"},
    {DType::kUint8, "uint8"},
    {DType::kInt32, "int32"},
    {DType::kUint32, "uint32"},
    {DType::kInt64, "int64"},
    {DType::kUint64, "uint64"},
    {DType::kHalf, "half"},
    {DType::kFloat, "float"},
    {DType::kDouble, "double"},
    {DType::kBFloat16, "bfloat16"},
    {DType::kFp8E4M3, "f8e4m3"},
    {DType::kFp8E5M2, "f8e5m2"},
}};

constexpr std::array<std::pair<ReduceOp, std::string_view>, 6> kOpNames{{
    {ReduceOp::kSum, "sum"},
    {ReduceOp::kProd, "prod"},
    {ReduceOp::kMax, "max"},
    {ReduceOp::kMin, "min"},
    {ReduceOp::kAvg, "avg"},
    {ReduceOp::kNone, "none"},
}};

template <typename Enum, std::size_t N>
std::string_view lookup_name(const std::array<std::pair<Enum, std::string_view>, N>& table,
                             Enum value) {
  for (const auto& [v, n] : table) {
    if (v == value) return n;
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> lookup_value(const std::array<std::pair<Enum, std::string_view>, N>& table,
                                 std::string_view text) {
  for (const auto& [v, n] : table) {
    if (n == text) return v;
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::vector<Enum> values_of(const std::array<std::pair<Enum, std::string_view>, N>& table) {
  std::vector<Enum> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}

}  // namespace

const std::vector<CollKind>& all_coll_kinds() {
  static const auto kinds = values_of(kCollNames);
  return kinds;
}

const std::vector<DType>& all_dtypes() {
  static const auto dtypes = values_of(kDTypeNames);
  return dtypes;
}

const std::vector<ReduceOp>& all_reduce_ops() {
  static const std::vector<ReduceOp> ops{ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMax,
                                         ReduceOp::kMin, ReduceOp::kAvg};
  return ops;
}

std::string_view name(CollKind kind) { return lookup_name(kCollNames, kind); }
std::string_view name(DType dtype) { return lookup_name(kDTypeNames, dtype); }
std::string_view name(ReduceOp op) { return lookup_name(kOpNames, op); }

std::optional<CollKind> parse_coll_kind(std::string_view text) {
  return lookup_value(kCollNames, text);
}
std::optional<DType> parse_dtype(std::string_view text) { return lookup_value(kDTypeNames, text); }
std::optional<ReduceOp> parse_reduce_op(std::string_view text) {
  auto op = lookup_value(kOpNames, text);
  if (op == ReduceOp::kNone) return std::nullopt;
  return op;
}

std::size_t element_bytes(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUint8:
    case DType::kFp8E4M3:
    case DType::kFp8E5M2:
      return 1;
    case DType::kHalf:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUint32:
    case DType::kFloat:
      return 4;
    case DType::kInt64:
    case DType::kUint64:
    case DType::kDouble:
      return 8;
  }
  return 1;
}

bool is_signed(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt32 || dtype == DType::kInt64 ||
         is_floating(dtype);
}

bool is_floating(DType dtype) { return mantissa_bits(dtype) > 0; }

int mantissa_bits(DType dtype) {
  switch (dtype) {
    case DType::kHalf:
      return 10;
    case DType::kFloat:
      return 23;
    case DType::kDouble:
      return 52;
    case DType::kBFloat16:
      return 7;
    case DType::kFp8E4M3:
      return 3;
    case DType::kFp8E5M2:
      return 2;
    default:
      return 0;
  }
}

bool is_reduction(CollKind kind) {
  return kind == CollKind::kAllreduce || kind == CollKind::kReduceScatter ||
         kind == CollKind::kReduce;
}

bool is_point_to_point(CollKind kind) {
  return kind == CollKind::kPingpong || kind == CollKind::kUniBw || kind == CollKind::kBiBw;
}

bool has_root(CollKind kind) {
  return kind == CollKind::kBroadcast || kind == CollKind::kReduce || kind == CollKind::kGather ||
         kind == CollKind::kScatter;
}

bool moves_data(CollKind kind) { return kind != CollKind::kBarrier; }

std::size_t blocks_per_op(CollKind kind, int nranks) {
  switch (kind) {
    case CollKind::kAllgather:
    case CollKind::kReduceScatter:
    case CollKind::kAlltoall:
    case CollKind::kAlltoallv:
    case CollKind::kGather:
    case CollKind::kScatter:
      return static_cast<std::size_t>(nranks);
    default:
      return 1;
  }
}

std::size_t op_bytes(const Collective& c, int nranks) {
  return c.count * element_bytes(c.dtype) * blocks_per_op(c.kind, nranks);
}

}  // namespace colltune
