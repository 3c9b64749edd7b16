#include "health/health_logs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "core/errors.hpp"
#include "core/failure_reason.hpp"
#include "store/json_text.hpp"

namespace colltune {

std::vector<std::string> silent_hosts_in_log(const std::vector<std::string>& lines) {
  static const std::regex kNamed(R"((?:rank \d+|ranks \d+-\d+) on ([^ ,;()]+))");
  std::vector<std::string> hosts;
  for (const std::string& line : lines) {
    const auto at = line.find("roll call: ");
    const auto end = line.find(" not answer", at);
    if (at == std::string::npos || end == std::string::npos) continue;
    const std::string part = line.substr(at, end - at);
    for (std::sregex_iterator it(part.begin(), part.end(), kNamed), stop; it != stop; ++it) {
      const std::string host = (*it)[1];
      if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
    }
    // Only the first report: a stopped rank that the job's teardown continues (SIGCONT before
    // SIGTERM) runs its own roll call late and names the ranks already gone.
    break;
  }
  return hosts;
}

std::string failure_words(const std::vector<std::string>& lines) {
  for (const char* mark : {"roll call:", "colltune: ", "Out of bounds values"}) {
    const auto it = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
      return line.find(mark) != std::string::npos;
    });
    if (it != lines.end()) return it->substr(0, 300);
  }
  return failure_reason(lines).value_or("").substr(0, 300);
}

std::string launch_failure(const LaunchOutcome& outcome, double limit_seconds,
                           const std::vector<std::string>& tail) {
  std::string reason =
      outcome.status == LaunchStatus::kTimeout
          ? fmt::format("hung: no end within {:g} s", limit_seconds)
          : fmt::format("the launch {} {}", name(outcome.status),
                        outcome.signal ? fmt::format("by signal {}", outcome.signal)
                                       : fmt::format("with exit {}", outcome.exit_code));
  const std::string words = failure_words(tail);
  return words.empty() ? reason : reason + ": " + words;
}

std::map<std::string, std::vector<IbPort>> ib_lines(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<IbPort>> out;
  for (const std::string& line : lines) {
    if (!line.starts_with("colltune-ib ")) continue;
    const auto j = parse_json_lenient(std::string_view(line).substr(12));
    if (!j.is_object() || !j.contains("host") || !j.at("host").is_string()) continue;
    out[j.at("host").get<std::string>()] =
        ib_ports_from_json(j.value("ports", nlohmann::json::array()));
  }
  return out;
}

LaunchReadback read_launch_records(const std::string& path) {
  LaunchReadback out;
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = fmt::format("{}:{}", path, n);
    const auto j = parse_json_input(line, where);
    if (j.is_discarded()) throw ConfigError(fmt::format("{}: not JSON", where));
    out.records.push_back(record_from_json(j, fmt::format("{}:{}", path, n)));
    if (out.rank_hosts.empty()) {
      for (const RankPlacement& p : placement_from_json(j.at("context").at("placement")))
        out.rank_hosts.push_back(p.host);
      out.ceilings = copy_ceilings_from_json(j.at("context"));
    }
  }
  return out;
}

int node_index(const std::vector<std::string>& hosts, const std::string& host) {
  const auto short_host = [](const std::string& h) { return h.substr(0, h.find('.')); };
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i] == host || short_host(hosts[i]) == short_host(host)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace colltune
