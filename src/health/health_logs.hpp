#pragma once
// What colltune health reads back from a launch: its records, and from its log (the launcher's
// stdout and stderr) who the ranks named, their own error words, the nodes' InfiniBand lines.

#include <map>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "store/record.hpp"
#include "sweep/supervisor.hpp"
#include "topo/infiniband.hpp"

namespace colltune {

// The hosts the first roll call in a colltune run log names as not answering ("roll call: rank 3
// on n4 does not answer"), each once.
std::vector<std::string> silent_hosts_in_log(const std::vector<std::string>& lines);

// What a failed launch's log says of it, best first: the ranks' roll call naming who stopped, a
// colltune error line, the wrong-result count, else the launcher's own cause line (srun's
// "error: ...", see failure_reason); at most 300 characters; "" when the log has none.
std::string failure_words(const std::vector<std::string>& lines);

// A failed or hung launch in one line: how it ended (hung past `limit_seconds`, an exit code, a
// signal), then what its log's `tail` says of it (failure_words). Pure.
std::string launch_failure(const LaunchOutcome& outcome, double limit_seconds,
                           const std::vector<std::string>& tail);

// Whether a launch_failure reason is Open MPI's word that it could not start its daemon on a
// node: nothing ran there, so the node is unreachable rather than failed. Pure.
inline bool never_started(const std::string& reason) {
  return reason.find("daemon") != std::string::npos;
}

// The index in `hosts` of `host`, matched whole or by its short name (before the first dot): a
// launcher may print either. -1 when none matches.
int node_index(const std::vector<std::string>& hosts, const std::string& host);

// Host -> its ports, from `colltune topo --ib-line` lines ("colltune-ib {json}"); other lines
// and lines that are not JSON are passed over.
std::map<std::string, std::vector<IbPort>> ib_lines(const std::vector<std::string>& lines);

struct LaunchReadback {
  std::vector<Record> records;
  std::vector<std::string> rank_hosts;  // each rank's host, from the records' placement
  std::vector<CopyCeiling> ceilings;    // --copy-ceiling's figures, from the records' context
};

// A finished launch's JSONL records (digest_records found them whole). Throws ConfigError
// naming the line of a record that does not read.
LaunchReadback read_launch_records(const std::string& path);

}  // namespace colltune
