#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune push RESULTS --gateway URL [--job NAME]`: the results' OpenMetrics figures to a
// Prometheus Pushgateway, grouped by job and host. Returns 0 pushed, 3 not pushed (refused,
// timed out, an HTTP error); throws ConfigError for bad input. Reads the store, never writes it.
int push_command(const std::vector<std::string>& args);

}  // namespace colltune
