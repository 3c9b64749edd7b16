// The words of a --timeout report: pure, apart from the sockets of roll_call.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "runner/roll_call.hpp"

namespace colltune {
namespace {

std::string host_at(const std::vector<std::string>& hosts, int rank) {
  return rank >= 0 && static_cast<std::size_t>(rank) < hosts.size()
             ? hosts[static_cast<std::size_t>(rank)]
             : std::string("?");
}

// "ranks 1-3 on vm, rank 7 on n2 and 4 more": runs of consecutive ranks on one host.
std::string name_ranks(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  constexpr std::size_t kMaxRuns = 8;
  std::string out;
  std::size_t runs = 0, i = 0;
  for (; i < ranks.size() && runs < kMaxRuns; ++runs) {
    std::size_t j = i;
    const std::string host = host_at(hosts, ranks[i]);
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1 &&
           host_at(hosts, ranks[j + 1]) == host) {
      ++j;
    }
    out += (out.empty() ? "" : ", ") +
           (i == j ? fmt::format("rank {}", ranks[i])
                   : fmt::format("ranks {}-{}", ranks[i], ranks[j])) +
           " on " + host;
    i = j + 1;
  }
  if (i < ranks.size()) out += fmt::format(" and {} more", ranks.size() - i);
  return out;
}

}  // namespace

std::string timeout_message(const std::string& what, double timeout_seconds, int my_rank,
                            const std::vector<std::string>& hosts, const RollCallResult& r) {
  const std::string mine = host_at(hosts, my_rank);
  std::string line =
      fmt::format("colltune: rank {} on {}: {} did not finish within {:g} s (--timeout)", my_rank,
                  mine, what, timeout_seconds);
  const std::string end = "; aborting the job";
  if (!r.asked || (r.silent.empty() && r.answered.empty())) return line + end;
  if (r.silent.empty()) {
    std::vector<int> progressed;  // peers that went on while this rank waited: rare, but telling
    for (const PeerAnswer& a : r.answered) {
      if (a.armed && a.idle_ms >= 0 && static_cast<double>(a.idle_ms) < timeout_seconds * 1e3) {
        progressed.push_back(a.rank);
      }
    }
    return line + "; roll call: every rank answers" +
           (progressed.empty() ? " and none progressed, so they wait on each other"
                               : fmt::format(", and {} progressed in the last {:g} s",
                                             name_ranks(progressed, hosts), timeout_seconds)) +
           end;
  }
  // Every rank elsewhere silent, none here: as likely a blocked UDP port as a host gone.
  std::size_t remote = 0, remote_silent = 0;
  for (int rank = 0; rank < static_cast<int>(hosts.size()); ++rank) {
    if (host_at(hosts, rank) == mine) continue;
    ++remote;
    if (std::count(r.silent.begin(), r.silent.end(), rank) > 0) ++remote_silent;
  }
  const bool one = r.silent.size() == 1, one_answered = r.answered.size() == 1;
  const std::string why =
      remote > 0 && remote_silent == remote && remote_silent == r.silent.size()
          ? "no rank on another host answers: a host down, or UDP between hosts blocked"
          : fmt::format("stopped, frozen or {} host down", one ? "its" : "their");
  line += fmt::format("; roll call: {} {} not answer ({})", name_ranks(r.silent, hosts),
                      one ? "does" : "do", why);
  if (!r.answered.empty()) {
    line += fmt::format(", {} other rank{} {}", r.answered.size(), one_answered ? "" : "s",
                        one_answered ? "does" : "do");
  }
  return line + end;
}

}  // namespace colltune
