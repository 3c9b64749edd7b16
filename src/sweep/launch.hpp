#pragma once
// The argv and environment of one point's launch (mpirun, srun or colltune alone), and the
// Slurm batch script that runs a whole sweep.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/expand.hpp"
#include "sweep/spec.hpp"

namespace colltune {

struct Launch {
  std::vector<std::string> argv;
  // Set in the launcher's own environment; the argv names each one (-x VAR, --export=ALL,VAR)
  // so the launcher forwards it to every rank.
  std::map<std::string, std::string> env;
};

// Throws ConfigError when the point's settings have no meaning on the spec's launcher.
Launch build_launch(const SweepSpec& spec, const Point& point, const std::string& colltune_path,
                    const std::string& records_path);

// srun places ranks in the allocation's node order, not the spec's host list: makes an srun
// launch put `ranks_per_host` ranks on each of `hosts` in that order (--distribution=arbitrary
// with SLURM_HOSTFILE, written to `hostfile`, a host per rank).
void keep_srun_host_order(Launch& launch, const std::vector<std::string>& hosts, int ranks_per_host,
                          const std::string& hostfile);

// A bash script with #SBATCH lines sized for the largest point, running `colltune sweep`
// (`spec_path` empty: the built-in default).
std::string sbatch_script(const SweepSpec& spec, const std::vector<Point>& points,
                          const std::string& colltune_path, const std::string& spec_path,
                          const std::string& results_dir);

// 'text' quoted for a POSIX shell; for showing commands to people, never for running them.
std::string shell_quote(const std::string& text);

// Whether `text` holds a control character (a newline, a tab, DEL): what must not reach a
// printed line raw.
bool has_control_characters(std::string_view text);

// The ranks a point launches: its np; else nodes x ranks_per_node where both are set; else the
// launcher's default (1 local, 2 otherwise). expand() refuses an np that contradicts the product.
std::string ranks_of(const SweepSpec& spec, const Settings& settings);

}  // namespace colltune
