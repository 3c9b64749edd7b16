// Asking NCCL whether it can run a collective here, without running it.

#include <algorithm>
#include <cstdlib>

#include "backends/nccl/nccl_state.hpp"
#include "core/env_switch.hpp"
#include "knobs/knob_scope.hpp"

namespace colltune {
namespace {

// The collectives NCCL picks an algorithm for (enqueue.cc topoGetAlgoInfo); the others are
// grouped send/recv, which always run.
bool selects_algorithm(CollKind kind) {
  return kind == CollKind::kAllreduce || kind == CollKind::kBroadcast ||
         kind == CollKind::kReduce || kind == CollKind::kAllgather ||
         kind == CollKind::kReduceScatter;
}

// Room for any probed op: NCCL reads no element while simulating, but the pointers are real.
constexpr std::size_t kProbeBytes = 1 << 16;

}  // namespace

std::optional<std::string> NcclCommunicator::probe(const Collective& c) {
  // ncclGroupSimulateEnd goes through NCCL's own algorithm selection and launches nothing
  // (group.cc ~114, enqueue.cc ~1848). Not on one rank (the op runs at once, enqueue.cc ~2569),
  // nor where can_probe says NCCL cannot be asked (a non-blocking communicator's group end
  // launches for real, group.cc ~642). With -g N the group holds the process's communicators:
  // they run the same op under the same environment, so the first fails before any queues work.
  if (!selects_algorithm(c.kind) || impl_->nranks < 2 || !impl_->can_probe()) return std::nullopt;
  if (impl_->probe_scratch.empty()) {
    for (const Gpu& gpu : impl_->gpus) {
      COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
      char* scratch = nullptr;
      COLLTUNE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&scratch), 2 * kProbeBytes));
      impl_->probe_scratch.push_back(scratch);
    }
  }
  // The same op at a size that fits: whether NCCL has an algorithm does not depend on it.
  Collective small = c;
  const std::size_t per_element = element_bytes(c.dtype) * static_cast<std::size_t>(impl_->nranks);
  small.count = std::max<std::size_t>(1, std::min(c.count, kProbeBytes / per_element));
  // NCCL names the knob in its error, and picks its return code, from the environment it sees
  // at enqueue (enqueue.cc ~1851): this communicator's interleaved setting.
  const ScopedEnvironment knobs(impl_->options.in_process_knobs);
  std::string failed;
  COLLTUNE_NCCL_CHECK(ncclGroupStart());
  try {
    const DeviceBuffers::PerGpu none;
    for (std::size_t g = 0; g < impl_->gpus.size(); ++g) {
      char* scratch = impl_->probe_scratch[g];
      impl_->enqueue(impl_->gpus[g], small, none, scratch, scratch + kProbeBytes, 0);
    }
  } catch (const NcclError& e) {
    failed = e.what();  // the group must still end
  }
  ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
  const ncclResult_t end = ncclGroupSimulateEnd(&sim);
  if (!failed.empty()) throw NcclError(failed);  // an argument NCCL refused: a bug, not a skip
  if (end == ncclSuccess) return std::nullopt;
  // ncclGetLastError is NCCL's last warning, process-wide: the reason, not the decision.
  const std::string last = ncclGetLastError(impl_->gpus.front().comm);
  const bool knob_set = std::getenv("NCCL_ALGO") != nullptr || std::getenv("NCCL_PROTO") != nullptr;
  if (auto skip =
          nccl_simulate_skip(end == ncclInvalidUsage, knob_set, ncclGetErrorString(end), last))
    return skip;
  throw NcclError(
      fmt::format("ncclGroupSimulateEnd failed: {} ({})", ncclGetErrorString(end), last));
}

}  // namespace colltune
