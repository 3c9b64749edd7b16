#pragma once
// Message sizes: parsing "64M", the nccl-tests size sweep, and sizes rounded to whole elements.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.hpp"

namespace colltune {

// "8", "64K", "16M", "1G" (binary multiples, as nccl-tests), also "1MB", "1MiB", "0.5K" and
// "1e6" as nccl-tests reads them -> bytes; nullopt if malformed, not whole bytes, or above 2^62.
std::optional<std::uint64_t> parse_bytes(std::string_view text);

// 1024 -> "1K", 3 -> "3", 1536 -> "1536": the shortest exact spelling parse_bytes accepts.
std::string format_bytes(std::uint64_t bytes);

// The nccl-tests sweep: from min_bytes, multiply by step_factor when it is > 1, else add
// step_bytes, while <= max_bytes. Throws ConfigError (naming the flag) when the sweep is empty
// or endless.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                       std::uint64_t step_factor, std::uint64_t step_bytes);

// The element count of `kind` for a requested size: rounded down to whole elements and, for
// per-peer collectives, to a whole count per rank. 0 when the size holds less than one.
std::size_t count_for_bytes(CollKind kind, DType dtype, int nranks, std::uint64_t bytes);

}  // namespace colltune
