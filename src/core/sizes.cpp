#include "core/sizes.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "core/errors.hpp"

namespace colltune {

std::optional<std::uint64_t> parse_bytes(std::string_view text) {
  // nccl-tests reads the first letter after the number as the unit, so "1MB" and "1MiB" are 1M
  // there; those spellings are accepted here, anything else after the unit is not.
  for (std::string_view tail : {"iB", "B"}) {
    if (text.size() > tail.size() + 1 && text.ends_with(tail) &&
        std::string_view("KkMmGg").find(text[text.size() - tail.size() - 1]) !=
            std::string_view::npos) {
      text.remove_suffix(tail.size());
      break;
    }
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t multiplier = 1;
  switch (text.back()) {
    case 'K':
    case 'k':
      multiplier = 1ULL << 10;
      break;
    case 'M':
    case 'm':
      multiplier = 1ULL << 20;
      break;
    case 'G':
    case 'g':
      multiplier = 1ULL << 30;
      break;
    default:
      break;
  }
  if (multiplier != 1) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  constexpr std::uint64_t kLimit = 1ULL << 62;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size()) {
    if (value > kLimit / multiplier) return std::nullopt;
    return value * multiplier;
  }
  // nccl-tests' sizes are doubles ("0.5K", "1e6"); taken when they come to whole bytes.
  double real = -1;
  auto [real_end, real_ec] = std::from_chars(text.data(), text.data() + text.size(), real);
  if (real_ec != std::errc() || real_end != text.data() + text.size() || !(real >= 0)) {
    return std::nullopt;
  }
  const double bytes = real * static_cast<double>(multiplier);
  if (!(bytes <= static_cast<double>(kLimit)) || bytes != std::floor(bytes)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::pair<std::uint64_t, char> kUnits[] = {
      {1ULL << 30, 'G'}, {1ULL << 20, 'M'}, {1ULL << 10, 'K'}};
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, suffix);
  }
  return fmt::format("{}", bytes);
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes,
                                       std::uint64_t step_factor, std::uint64_t step_bytes) {
  if (min_bytes > max_bytes) {
    throw ConfigError(fmt::format(
        "-b/--minbytes: {} is larger than -e/--maxbytes {}; the smallest size must not exceed "
        "the largest",
        format_bytes(min_bytes), format_bytes(max_bytes)));
  }
  if (step_factor == 0) {
    throw ConfigError("-f/--stepfactor: 0 is not allowed; use 1 to step by -i/--stepbytes or >= 2");
  }
  const bool multiply = step_factor > 1;
  if (!multiply && step_bytes == 0 && min_bytes != max_bytes) {
    throw ConfigError(
        "-i/--stepbytes: 0 with -f/--stepfactor 1 would never reach -e/--maxbytes; give a step "
        "of at least 1 byte or a factor of at least 2");
  }
  if (multiply && min_bytes == 0 && max_bytes > 0) {
    throw ConfigError("-b/--minbytes: 0 cannot grow by -f/--stepfactor; start at 1 byte or more");
  }
  std::vector<std::uint64_t> sizes;
  std::uint64_t size = min_bytes;
  while (true) {
    sizes.push_back(size);
    const std::uint64_t next = multiply ? size * step_factor : size + step_bytes;
    // Stop on reaching the end and on overflow; a step of 0 with min == max ends here too.
    if (next > max_bytes || next <= size) break;
    size = next;
  }
  return sizes;
}

std::size_t count_for_bytes(CollKind kind, DType dtype, int nranks, std::uint64_t bytes) {
  const std::uint64_t per_block = element_bytes(dtype) * blocks_per_op(kind, nranks);
  return static_cast<std::size_t>(bytes / per_block);
}

}  // namespace colltune
