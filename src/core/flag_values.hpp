#pragma once
// Flag values read from the command line, each refused in one line naming the flag, the value
// and what is allowed (ConfigError).

#include <cstdint>
#include <string>
#include <string_view>

namespace colltune {

// Bytes, with K, M or G (2^10, 2^20, 2^30) read as nccl-tests reads them.
std::uint64_t parse_size_flag(const std::string& text, std::string_view flag);

// A whole number within [min, max].
long long parse_integer_flag(const std::string& text, std::string_view flag, long long min,
                             long long max);

// A number with its unit, such as "5%" or "0.002" seconds, within [min, max] of that unit.
double parse_number_flag(std::string text, std::string_view flag, std::string_view unit, double min,
                         double max);

}  // namespace colltune
