#pragma once
// The result of measuring one Collective, and the context that makes it reproducible.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/bandwidth.hpp"
#include "core/collective.hpp"
#include "core/race.hpp"
#include "core/stats.hpp"

namespace colltune {

// batch: k back-to-back ops per sample (nccl-tests); per-op: barrier before every op (OSU).
enum class TimingMode { kBatch, kPerOp };
// warm: one buffer set reused; cold: buffer sets rotated so no op finds its data in cache.
enum class CacheMode { kWarm, kCold };

// How one sample's time is taken over ranks (nccl-tests -a: 0 rank 0, 1 mean, 2 min, 3 max).
// colltune's default is the max: the op is done when its slowest rank is.
enum class RankReduction { kRank0, kMean, kMin, kMax };

// What a sample's clock spans: until the ops are done (default), or until the host's launch
// calls return (nccl-tests -C: the CPU cost of launching; the same for blocking MPI calls).
enum class TimeSpan { kCompletion, kLaunch };

std::string_view name(TimingMode mode);
std::string_view name(TimeSpan span);
std::string_view name(CacheMode mode);
std::string_view name(RankReduction how);

struct Measurement {
  Collective coll;
  int nranks = 0;
  std::uint64_t bytes = 0;              // op_bytes(coll, nranks)
  std::optional<std::string> skipped;   // why this op was not run, when it was not
  std::vector<double> samples_seconds;  // one op's time per sample, max over ranks
  // --rank-samples: each process's own samples before the reduction over ranks, in rank order
  // (rank 0 holds them; empty otherwise), so a report can name the rank that lags.
  std::vector<std::vector<double>> rank_samples_seconds;
  Summary summary;                     // of samples_seconds
  Bandwidth at_median;                 // bandwidth at summary.median
  std::optional<std::uint64_t> wrong;  // summed over ranks; nullopt when not checked
  int ops_per_sample = 0;
  std::size_t buffer_sets = 1;  // >1 when rotating for cold cache
  // Racing (--interleave, --race on): how this setting's sampling ended, after which turn.
  RaceOutcome race = RaceOutcome::kNotRaced;
  int race_turn = 0;
  RankReduction rank_reduction = RankReduction::kMax;  // how each sample was taken over ranks
  // --interleave: the knobs (OMPI_MCA_<name> -> value) its communicator was created under;
  // empty when the run measured one configuration.
  std::map<std::string, std::string> in_process_knobs;
};

struct RankPlacement {
  int rank = 0;
  std::string host;
  std::string cpus;       // the rank's actual affinity, as a cpulist ("0-3,8")
  std::string cores;      // physical cores (hwloc logical indexes) those CPUs belong to
  std::string numa;       // NUMA nodes (OS indexes) those CPUs belong to
  int host_pus = 0;       // PUs on the rank's host, to tell "bound" from "anywhere"
  std::string nic_numa;   // NUMA nodes of the host's InfiniBand NICs; "" when it has none
  std::string gpu;        // PCI bus id of the rank's GPU; "" for host-only backends
  std::string gpu_numa;   // NUMA node of that GPU; "" when unknown
  std::string gpu_model;  // its name, memory and compute capability; "" without a GPU
};

// One memcpy ceiling of one host: per NUMA node ("host_memcpy", index = the node) and per GPU
// ("device_memcpy", index = the CUDA device), bytes copied per second in GB (1e9).
struct CopyCeiling {
  std::string host;
  std::string kind;
  int index = -1;
  double gbps = 0;
};

struct RunContext {
  std::string colltune_version;
  std::string git_revision;
  std::string backend;
  std::string start_time_utc;  // ISO 8601
  std::vector<std::string> command_line;
  int nranks = 0;                  // communicator ranks: processes x gpus_per_process
  int gpus_per_process = 1;        // -g; 1 for host-only backends
  std::vector<std::string> hosts;  // distinct, in rank order of first appearance
  std::map<std::string, int> ranks_per_host;
  std::vector<RankPlacement> placement;                 // one per communicator rank
  std::map<std::string, std::string> library_versions;  // "mpi" -> MPI_Get_library_version ...
  std::string mpi_family, mpi_version;  // parsed from library_versions["mpi"]; empty: unknown
  std::map<std::string, std::string> backend_settings;  // NCCL: -G and ncclConfig_t fields
  TimingMode timing = TimingMode::kBatch;
  TimeSpan span = TimeSpan::kCompletion;
  CacheMode cache = CacheMode::kWarm;
  RankReduction rank_reduction = RankReduction::kMax;
  std::uint64_t min_bytes = 0;  // the size sweep asked for (-b -e -f -i)
  std::uint64_t max_bytes = 0;
  std::uint64_t step_factor = 1;
  std::uint64_t step_bytes = 0;
  int warmup_iters = 0;
  int iters = 0;
  int repetitions = 0;            // samples per size; raced: the budget of turns
  bool race = false;              // settings raced: one stops being sampled once decided
  double min_sample_seconds = 0;  // > 0: ops per sample grew per size to last this (not iters)
  int check_rounds = 0;
  std::map<std::string, std::string> environment;  // allow-listed, secrets redacted
  std::vector<std::string> warnings;               // health and placement checks that failed
  std::vector<CopyCeiling> copy_ceilings;          // --copy-ceiling: every host's; else empty
};

}  // namespace colltune
