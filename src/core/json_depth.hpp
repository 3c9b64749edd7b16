#pragma once
// How deep JSON text nests, found before any parser sees it. nlohmann's parser and the values it
// builds recurse per level (copies, comparisons, dump): 100,000 levels of `[` overflow the stack
// in report, verify and the tuner plugin inside NCCL's process. Header-only and allocation-free
// so that the plugin, which links no colltune library, runs the same check.

#include <cstddef>
#include <string_view>

namespace colltune {

// Deeper than any file colltune reads or writes (records nest 5 levels, the tuned file 4).
inline constexpr std::size_t kMaxJsonDepth = 64;

// True when no array or object in `text` nests deeper than `limit` levels. Brackets inside
// strings do not count; malformed text is left to the parser. Pure; any thread.
inline bool json_depth_within(std::string_view text, std::size_t limit = kMaxJsonDepth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace colltune
