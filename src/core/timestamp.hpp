#pragma once

#include <string>

namespace colltune {

// Now in UTC: "2026-11-29T23:17:00Z", or "20261129T231700Z" when `compact` (for file names).
std::string utc_timestamp(bool compact = false);

}  // namespace colltune
