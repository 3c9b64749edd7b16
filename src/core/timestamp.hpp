#pragma once

#include <optional>
#include <string>

namespace colltune {

// Now in UTC: "2026-11-29T23:17:00Z", or "20261129T231700Z" when `compact` (for file names).
std::string utc_timestamp(bool compact = false);

// Seconds since 1970 of "2026-11-29T23:17:00Z" (fractions of a second allowed, ignored); nullopt
// for anything else, so a history never orders runs by a misread date.
std::optional<long long> parse_utc_seconds(const std::string& text);

}  // namespace colltune
