#pragma once
// `colltune run --interleave` settings: Open MPI parameters measured side by side in one launch,
// each on a communicator created after writing it through MPI_T. Plain parsing, no MPI here.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// MCA name without OMPI_MCA_ -> canonical value.
using MpiTSettings = std::map<std::string, std::string>;

inline constexpr std::size_t kMaxInterleaved = 64;

// A value --interleave takes, canonical: a 32-bit integer without sign or leading zeros noise
// ("08" -> "8"), or "default" (the value the process was launched with); nullopt otherwise.
std::optional<std::string> canonical_mpi_t_value(std::string_view text);

// The settings to measure, in order: the product of the `axes` flags ("NAME=V1,V2", the first
// varying slowest), or the `sets` flags one each ("NAME=V NAME2=V2", names missing from one set
// "default"). NAME may carry the OMPI_MCA_ prefix. Empty when both are. Throws ConfigError with
// one line naming the flag, the value and what is allowed.
std::vector<MpiTSettings> parse_interleave(const std::vector<std::string>& axes,
                                           const std::vector<std::string>& sets);

}  // namespace colltune
