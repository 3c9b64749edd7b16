#pragma once
// Which collectives a knob can change, on which backend, and Open MPI coll/tuned's table of the
// collectives colltune measures. A configuration whose knobs cannot change a collective is a
// replicate of its baseline there, never a candidate winner.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// False only where the knob provably cannot change `collective` (colltune's name, "allreduce")
// measured on `backend` ("mpi", "nccl"; empty when unknown, which changes nothing): a
// coll_tuned parameter of another collective, an Open MPI parameter on the NCCL backend, a
// NCCL knob on the MPI backend, NCCL_ALGO on point-to-point or a collective its per-collective
// form does not name. Unknown knobs may change anything.
bool knob_affects(std::string_view knob, std::string_view value, std::string_view collective,
                  std::string_view backend);

// What the static table knows of the communicator an NCCL_ALGO value meets.
struct NcclShape {
  int gpus_per_node = 0;   // the most ranks (GPUs) of the communicator on one node; 0: unknown
  std::string proto;       // NCCL_PROTO in force ("" unset)
  std::string pat_enable;  // NCCL_PAT_ENABLE in force ("" unset: NCCL's 2, decide)
  bool can_probe = true;   // false: NCCL cannot be asked without running the op
};

// Why NCCL_ALGO=`value` leaves `collective` (colltune's names, as are `dtype` and `op`; empty
// when not a reduction) no algorithm NCCL can run, or nullopt when one remains or NCCL_ALGO does
// not apply to it. NCCL then fails the call (ncclInvalidUsage) instead of falling back, so such a
// collective is a skip, not a run. Per NCCL's src/device/generate.py (algos_of_coll): broadcast
// and reduce Ring only; allgather and reduce_scatter Ring, CollnetDirect, NVLS, PAT; allreduce
// all but PAT; NVLS and NVLSTree reduce only the types and ops of device.h ncclNvlsSupported; PAT
// reduce_scatter has no avg. And per tuning.cc, from `shape`: PAT only with one GPU per node
// (ncclPatEnable, unless NCCL_PAT_ENABLE=1; never with 0), NVLS and NVLSTree with Simple only.
// What depends on the system (NVLS hardware, NVLSTree across nodes, CollNet) only NCCL's own
// probe knows; where it cannot be asked (!shape.can_probe), an algorithm list of only those is
// refused too, with why.
std::optional<std::string> nccl_algo_unusable(std::string_view value, std::string_view collective,
                                              std::string_view dtype = "", std::string_view op = "",
                                              const NcclShape& shape = {});

// What a failed ncclGroupSimulateEnd over ops NCCL accepted means: a skip reason ("NCCL cannot
// run it here"), or nullopt for an error. NCCL's topoGetAlgoInfo ends "no algorithm/protocol"
// with ncclInvalidUsage exactly when NCCL_ALGO or NCCL_PROTO is set, else ncclInternalError
// (enqueue.cc, the same at 2.28.9, 2.29.7, 2.30.3 and 2.30.7), while its warning's wording
// changed at 2.30.3 and again by 2.32: the code and the environment decide, `last_warning`
// (ncclGetLastError) only explains. `result` is ncclGetErrorString's text.
std::optional<std::string> nccl_simulate_skip(bool invalid_usage, bool algo_or_proto_set,
                                              std::string_view result,
                                              std::string_view last_warning);

// True when at least one of `settings` (environment names, as a point's settings) that differs
// from `baseline` may change `collective` on `backend`. Placement keys are ignored.
bool settings_affect(const std::map<std::string, std::string>& settings,
                     const std::map<std::string, std::string>& baseline,
                     std::string_view collective, std::string_view backend);

// The collective an MPICH or Intel MPI algorithm knob selects for, in colltune's words:
// MPIR_CVAR_<COLL>_INTRA_ALGORITHM and _INTER_ALGORITHM (MPICH), I_MPI_ADJUST_<COLL> (Intel MPI)
// -> "allreduce", "broadcast" (bcast), "reduce_scatter" (reduce_scatter_block); "" for one
// colltune does not measure (scan, reduce_scatter); nullopt when `knob` is neither form.
std::optional<std::string> mpi_algorithm_knob_collective(std::string_view knob);

// Open MPI coll/tuned (4.1.4: ompi_info --param coll tuned --level 9): one entry per
// collective it tunes, the one table every check, scope and rules file reads.
struct TunedCollective {
  std::string_view mca;         // "bcast": coll_tuned_<mca>_algorithm
  int max_algorithm = 0;        // forced-algorithm ids run 0 (decide) .. this
  std::string_view collective;  // colltune's name; empty where colltune does not measure it
  int rules_id = -1;            // id in a dynamic rules file; -1 where colltune writes none
};
const std::vector<TunedCollective>& tuned_collectives();

// coll/tuned's rules file: set (with kDynamicRulesKnob), it chooses for every collective it has
// rules for.
inline constexpr std::string_view kRulesFileKnob = "OMPI_MCA_coll_tuned_dynamic_rules_filename";

// In each warning below: how verify tells a file Open MPI did not apply.
inline constexpr std::string_view kNotTunedMark = "here, not coll/tuned";

// One warning per collective whose coll_tuned choice `knobs` (environment names) force, by its
// algorithm knob or by kRulesFileKnob for each of `measured` (colltune's names), and which another
// Open MPI component serves: `components` is collective (Open MPI's name, "allreduce") ->
// component ("tuned", "han", "sm"), as the library's own table said in this launch. The forced
// value or the file then does not choose what runs.
std::vector<std::string> moot_tuned_algorithm_warnings(
    const std::map<std::string, std::string>& components, const std::vector<std::string>& knobs,
    const std::vector<std::string>& measured = {});

// Open MPI's coll/tuned ignores forced algorithms and rules files unless this is 1 at launch
// (read only during MPI_Init; read-only through MPI_T on 4.1).
inline constexpr std::string_view kDynamicRulesKnob = "OMPI_MCA_coll_tuned_use_dynamic_rules";

// True for the coll/tuned parameters that take effect only with kDynamicRulesKnob=1: the
// per-collective ones (algorithm, segment size, fan-outs...) and the rules file.
bool needs_dynamic_rules(std::string_view knob);

// "OMPI_MCA_coll_tuned_<mca>_algorithm" for a colltune collective coll/tuned decides; nullopt
// for point-to-point and what coll/tuned does not tune.
std::optional<std::string> tuned_algorithm_knob(std::string_view collective);

}  // namespace colltune
