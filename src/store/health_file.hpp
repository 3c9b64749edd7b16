#pragma once
// health.json (colltune health's verdicts, written by src/health/health_report.cpp), read back
// for the tools that act on it: each node's verdict and its figure against the fleet.

#include <optional>
#include <string>
#include <vector>

namespace colltune {

struct HealthNodeFigure {
  std::string node;
  std::string verdict;                   // "ok", "slow", "failed", "unreachable", "not judged"
  bool named = false;                    // slow, failed or unreachable: the check names it
  std::optional<double> ratio;           // the fleet's time over its own: 0.5 = half as fast
  std::optional<double> median_seconds;  // its median time on the metric that judged it
  bool network_path = false;             // slow in its pairs, ok alone: its NIC, cable or port
};

// A leaf switch named for its uplinks (health --topology): how many of the pairs leaving it are
// slow links.
struct HealthUplink {
  std::string leaf;
  int slow_links = 0;
};

struct HealthFile {
  int exit_code = 0;  // colltune health's own
  std::vector<HealthNodeFigure> nodes;
  std::vector<HealthUplink> uplinks;  // absent in files from before --topology: none
};

// Reads `path`. Throws ConfigError naming the file, the field and what is allowed where it is
// not health.json of schema_version 1.
HealthFile read_health_file(const std::string& path);

}  // namespace colltune
