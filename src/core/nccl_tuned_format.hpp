#pragma once
// The tuned file colltune writes (tune --emit nccl-plugin) and its NCCL tuner plugin reads: one
// home for its name, version and NCCL's numbering of collectives, algorithms and protocols (NCCL
// 2.28.9, src/include/device.h and nccl_common.h: the ids the tuner ABI passes).

#include <array>
#include <cstddef>
#include <string_view>

namespace colltune::tuned_format {

inline constexpr std::string_view kFormat = "colltune-nccl-tuned";
inline constexpr int kVersion = 1;
// A tuned file is kilobytes; past this it is not one, and reading it would slow NCCL's init.
inline constexpr std::size_t kMaxFileBytes = std::size_t{64} << 20;
inline constexpr std::string_view kAny = "any";

// Index = NCCL's id: ncclFunc_t, NCCL_ALGO_*, NCCL_PROTO_*.
inline constexpr std::array<std::string_view, 5> kCollectives{"broadcast", "reduce", "allgather",
                                                              "reduce_scatter", "allreduce"};
inline constexpr std::array<std::string_view, 7> kAlgorithms{
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
inline constexpr std::array<std::string_view, 3> kProtocols{"ll", "ll128", "simple"};

// NCCL's id of `name` in `names`, or -1.
template <std::size_t N>
constexpr int id_of(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace colltune::tuned_format
