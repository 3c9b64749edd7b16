#include "core/timestamp.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace colltune {

std::string utc_timestamp(bool compact) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[40];
  const std::size_t n =
      std::strftime(text, sizeof(text), compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%S", &tm);
  if (compact) return std::string(text, n);
  char fraction[8];
  std::snprintf(fraction, sizeof fraction, ".%03dZ", static_cast<int>(millis));
  return std::string(text, n) + fraction;
}

std::optional<long long> parse_utc_millis(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (end == nullptr) return std::nullopt;
  long long millis = 0;
  if (*end == '.') {
    ++end;
    if (*end < '0' || *end > '9') return std::nullopt;
    for (int digit = 0; *end >= '0' && *end <= '9'; ++end, ++digit)
      if (digit < 3) millis += (*end - '0') * (digit == 0 ? 100 : digit == 1 ? 10 : 1);
  }
  if (std::string_view(end) != "Z") return std::nullopt;
  // strptime takes a day 1-31 in any month and timegm rolls it over: a date that does not come
  // back unchanged did not exist.
  const std::tm given = tm;
  const std::time_t seconds = timegm(&tm);
  std::tm back{};
  gmtime_r(&seconds, &back);
  if (back.tm_year != given.tm_year || back.tm_mon != given.tm_mon ||
      back.tm_mday != given.tm_mday || back.tm_hour != given.tm_hour ||
      back.tm_min != given.tm_min || back.tm_sec != given.tm_sec) {
    return std::nullopt;
  }
  return static_cast<long long>(seconds) * 1000 + millis;
}

std::optional<long long> parse_utc_seconds(const std::string& text) {
  const auto millis = parse_utc_millis(text);
  if (!millis) return std::nullopt;
  return *millis / 1000;
}

std::optional<std::string> local_time_as_utc(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const std::tm given = tm;
  tm.tm_isdst = -1;  // the zone's own rule for that date
  const std::time_t seconds = mktime(&tm);
  if (seconds == static_cast<std::time_t>(-1) || tm.tm_year != given.tm_year ||
      tm.tm_mon != given.tm_mon || tm.tm_mday != given.tm_mday) {
    return std::nullopt;  // a day that does not exist (2026-02-29)
  }
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char out[40];
  const std::size_t n = std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
  return std::string(out, n);
}

}  // namespace colltune
