#pragma once

#include <optional>
#include <string>

namespace colltune {

// Now in UTC to the millisecond: "2026-11-29T23:17:00.123Z" (two sweeps started within one
// second are still two times), or "20261129T231700Z" when `compact` (for file names).
std::string utc_timestamp(bool compact = false);

// Milliseconds since 1970 of "2026-11-29T23:17:00Z" or "...:00.123Z" (digits past the third
// ignored); nullopt for anything else, impossible dates (2026-02-29, 24:00:00) included, so a
// history never orders runs by a misread date.
std::optional<long long> parse_utc_millis(const std::string& text);

// "2026-01-01 00:00:00" read in this machine's time zone (TZ), as UTC ISO 8601 to the
// millisecond: nccl-tests' -J start_time is its host's local time without a zone. nullopt for
// anything else, a day that does not exist included.
std::optional<std::string> local_time_as_utc(const std::string& text);

// The same in whole seconds.
std::optional<long long> parse_utc_seconds(const std::string& text);

}  // namespace colltune
