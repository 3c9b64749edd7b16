#pragma once

#include "store/atomic_file.hpp"
#include "store/results.hpp"

namespace colltune {

// One row per record, columns fixed (csv_columns()); times in microseconds; to `out` a row at a
// time (results.csv is streamed to its file).
void render_csv(const Dataset& d, const TextSink& out);
const char* csv_columns();

}  // namespace colltune
