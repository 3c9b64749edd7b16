#pragma once

#include <string>

#include "store/atomic_file.hpp"
#include "store/results.hpp"

namespace colltune {

// One row per record, columns fixed (csv_columns()); times in microseconds. To `out` a row at a
// time, or whole.
void render_csv(const Dataset& d, const TextSink& out);
std::string render_csv(const Dataset& d);
const char* csv_columns();

}  // namespace colltune
