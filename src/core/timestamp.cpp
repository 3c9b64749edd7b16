#include "core/timestamp.hpp"

#include <chrono>
#include <ctime>
#include <string_view>

namespace colltune {

std::string utc_timestamp(bool compact) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::optional<long long> parse_utc_seconds(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  if (*end == '.') {
    ++end;
    if (*end < '0' || *end > '9') return std::nullopt;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (std::string_view(end) != "Z") return std::nullopt;
  return static_cast<long long>(timegm(&tm));
}

}  // namespace colltune
