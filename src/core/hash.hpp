#pragma once
// FNV-1a 64: the one hash of point ids, the stored spec's change detector and a launch's
// records digest. Stable across versions and machines (ids name store directories); not a
// cryptographic hash.

#include <cstdint>
#include <string_view>

namespace colltune {

inline constexpr std::uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;

// Continues `hash` over `text`; start from kFnvOffsetBasis. Pure.
constexpr std::uint64_t fnv1a64(std::string_view text, std::uint64_t hash = kFnvOffsetBasis) {
  for (char ch : text) {
    hash ^= static_cast<unsigned char>(ch);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace colltune
