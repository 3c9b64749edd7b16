#include "report/health_metrics.hpp"

#include <fmt/format.h>

#include "report/escape.hpp"

namespace colltune {

std::string health_openmetrics(const HealthFile& health) {
  std::string named =
      "# TYPE colltune_health_node_named gauge\n# HELP colltune_health_node_named 1 when colltune "
      "health names the node (slow, failed or unreachable), else 0.\n";
  std::string verdict =
      "# TYPE colltune_health_node_verdict gauge\n# HELP colltune_health_node_verdict The node's "
      "verdict, as the verdict label (value 1).\n";
  std::string ratio =
      "# TYPE colltune_health_node_speed_ratio gauge\n# HELP colltune_health_node_speed_ratio The "
      "fleet's time over the node's (0.5: half as fast), on the figure that judged it.\n";
  std::string seconds =
      "# TYPE colltune_health_node_seconds gauge\n# HELP colltune_health_node_seconds The node's "
      "median time on the figure that judged it.\n";
  std::string network =
      "# TYPE colltune_health_node_network_path gauge\n# HELP colltune_health_node_network_path 1 "
      "when the node is named for its network path (slow in its pairs, ok alone), else 0.\n";
  std::string uplinks =
      "# TYPE colltune_health_switch_uplink_slow_links gauge\n# HELP "
      "colltune_health_switch_uplink_slow_links Slow links leaving a leaf switch named for its "
      "uplinks.\n";
  for (const HealthUplink& u : health.uplinks) {
    uplinks += fmt::format("colltune_health_switch_uplink_slow_links{{switch=\"{}\"}} {}\n",
                           metric_label(u.leaf), u.slow_links);
  }
  for (const HealthNodeFigure& n : health.nodes) {
    const std::string node = metric_label(n.node);
    named += fmt::format("colltune_health_node_named{{node=\"{}\"}} {}\n", node, n.named ? 1 : 0);
    network += fmt::format("colltune_health_node_network_path{{node=\"{}\"}} {}\n", node,
                           n.network_path ? 1 : 0);
    verdict += fmt::format("colltune_health_node_verdict{{node=\"{}\",verdict=\"{}\"}} 1\n", node,
                           metric_label(n.verdict));
    if (n.ratio)
      ratio +=
          fmt::format("colltune_health_node_speed_ratio{{node=\"{}\"}} {:.6g}\n", node, *n.ratio);
    if (n.median_seconds)
      seconds += fmt::format("colltune_health_node_seconds{{node=\"{}\"}} {:.6g}\n", node,
                             *n.median_seconds);
  }
  return named + verdict + ratio + seconds + network + (health.uplinks.empty() ? "" : uplinks) +
         fmt::format(
             "# TYPE colltune_health_exit_code gauge\n# HELP colltune_health_exit_code colltune "
             "health's exit code (0 all ok, 1 something named, 3 could not check).\n"
             "colltune_health_exit_code {}\n",
             health.exit_code);
}

}  // namespace colltune
