#pragma once
// The OSU Micro-Benchmarks' text output (7.x; 5.x and 6.x read alike) as a Dataset: one launch
// per file, one record per size, the logged figure as its only sample.

#include <string>

#include "store/results.hpp"

namespace colltune {

// A "# OSU MPI ... Test v..." line before any table row.
bool looks_like_osu_text(const std::string& text);

// osu_latency (pingpong), osu_bw, osu_bibw, osu_mbw_mr (bw over its pairs) and the blocking
// collectives, with -f's Min/Max/Iterations and -c's Validation columns. Point-to-point runs on
// 2 ranks (mbw_mr: 2 x pairs); a collective's rank count, which OSU does not print, comes from
// the file name (np<N>, as in osu_allreduce.np16.log). bw and bibw assume OSU's window of 64
// (not in its output; mbw_mr prints its own). Start time: the file's modification time. Throws
// ConfigError "<path>:<line>: ..." for a truncated or foreign log.
Dataset load_osu_text(const std::string& path, const std::string& text, const LoadOptions& o);

}  // namespace colltune
