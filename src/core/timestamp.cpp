#include "core/timestamp.hpp"

#include <chrono>
#include <ctime>

namespace colltune {

std::string utc_timestamp(bool compact) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace colltune
