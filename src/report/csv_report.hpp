#pragma once

#include <string>

#include "store/results.hpp"

namespace colltune {

// One row per record, columns fixed (csv_columns()); times in microseconds.
std::string render_csv(const Dataset& d);
const char* csv_columns();

}  // namespace colltune
