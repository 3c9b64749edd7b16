#pragma once
// nccl-tests' text output (stdout, 2.x) read as a Dataset: one launch per file, one record per
// table row and half (out-of-place, in-place), the logged time as its only sample.

#include <string>

#include "store/results.hpp"

namespace colltune {

// A "# nThread " header before any table row: what every nccl-tests 2.x log starts its table
// with (after NCCL's own lines, if any).
bool looks_like_nccl_tests_text(const std::string& text);

// Several collectives in one log are read alike (each "# nThread" header starts one); NCCL
// INFO/WARN lines may stand anywhere. The collective comes from "# Collective test starting:"
// (2.16.7+), else from a binary's name in the file name, else from the table (redop, root, and
// busbw over algbw against each collective's bus factor) where that is unambiguous. Start time:
// the file's modification time (the log carries no date), said in Dataset::notes. Throws
// ConfigError "<path>:<line>: ..." for a truncated or foreign log, or a collective it cannot tell.
Dataset load_nccl_tests_text(const std::string& path, const std::string& text,
                             const LoadOptions& o);

}  // namespace colltune
