#pragma once
// Reading back what tune writes, for colltune verify: which kind of tuned file it is, what it
// sets, and which (collective, ranks, sizes) each of its rows covers.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace colltune {

enum class TunedKind { kOmpiRules, kNcclPlugin, kMpichSelection, kEnv };

// A part of the file a verdict is given for: a rules-file rule, a plugin row, or (env) each
// collective asked for. Sizes are colltune's bytes, inclusive.
struct VerifiedRow {
  std::string collective;  // colltune's name
  int nranks = 0;          // the communicator size it was written for; 0: any
  std::uint64_t min_bytes = 0, max_bytes = UINT64_MAX;
  std::string what;  // "rule 2: algorithm 4 from 65536 B on 4 ranks"
};

struct TunedFile {
  TunedKind kind = TunedKind::kEnv;
  std::string path;
  std::vector<VerifiedRow> rows;
  std::map<std::string, std::string> env;  // what a launch sets to apply it
  int nnodes = 0;                          // nccl-plugin: the rows' node count
  std::vector<std::string> unreachable;    // mpich-json: rules MPICH would never reach, and why
};

// Reads `path` and works out its kind: colltune's tuned JSON, MPICH's collective selection JSON
// (tune --emit mpich-json), an Open MPI coll/tuned rules file
// (classic format) or a shell file of NAME=VALUE lines (tune --emit env). `plugin_path` is the
// tuner plugin NCCL should load (next to colltune). Throws ConfigError naming the file, line or
// row and what is allowed.
TunedFile read_tuned_file(const std::string& path, const std::string& plugin_path);

const char* name(TunedKind kind);  // "ompi-rules", "nccl-plugin", "mpich-json", "env"

}  // namespace colltune
