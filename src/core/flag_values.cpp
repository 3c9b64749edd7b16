#include "core/flag_values.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/errors.hpp"
#include "core/sizes.hpp"

namespace colltune {

std::uint64_t parse_size_flag(const std::string& text, std::string_view flag) {
  const auto bytes = parse_bytes(text);
  if (!bytes) {
    throw ConfigError(fmt::format(
        "{}: '{}' is not a size; allowed: a whole number of bytes, optionally with K, M or G "
        "(2^10, 2^20, 2^30; 1MB and 0.5K read as nccl-tests reads them)",
        flag, text));
  }
  return *bytes;
}

long long parse_integer_flag(const std::string& text, std::string_view flag, long long min,
                             long long max) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw ConfigError(fmt::format("{}: '{}' is not allowed; allowed: an integer from {} to {}",
                                  flag, text, min, max));
  }
  return value;
}

double parse_number_flag(std::string text, std::string_view flag, std::string_view unit, double min,
                         double max) {
  const std::string given = text;
  const bool percent = unit == "%";
  if (percent && !text.empty() && text.back() == '%') text.pop_back();
  double value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || (percent && given.back() != '%') ||
      !(value >= min && value <= max)) {
    throw ConfigError(fmt::format("{}: '{}' is not allowed; allowed: {}{} to {}{}", flag, given,
                                  min, unit, max, unit));
  }
  return value;
}

}  // namespace colltune
