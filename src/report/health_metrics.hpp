#pragma once
// colltune health's verdicts as gauges, where operators look (Prometheus, through `colltune
// push`): one series per node and figure, named by node, so an alert reads one number.

#include <string>

#include "store/health_file.hpp"

namespace colltune {

// Prometheus text format (no # EOF): per node colltune_health_node_named (1 when the check
// names it slow, failed or unreachable, else 0), colltune_health_node_verdict (1, the verdict
// as a label), colltune_health_node_speed_ratio (the fleet's time over its own) and
// colltune_health_node_seconds (its median time) where health judged it,
// colltune_health_node_network_path (1 when named for its network path); per leaf switch named
// for its uplinks colltune_health_switch_uplink_slow_links; and colltune_health_exit_code.
std::string health_openmetrics(const HealthFile& health);

}  // namespace colltune
