#pragma once
// What the NCCL backend's translation units share: the check macros, one GPU's state, device
// buffers and the communicator's Impl. Internal to src/backends/nccl.

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backends/nccl/nccl_communicator.hpp"
#include "core/errors.hpp"
#include "core/exchange.hpp"
#include "core/validation.hpp"

#define COLLTUNE_CUDA_CHECK(call)                                                 \
  do {                                                                            \
    const cudaError_t colltune_err = (call);                                      \
    if (colltune_err != cudaSuccess) {                                            \
      throw ::colltune::CudaError(                                                \
          fmt::format("{} failed: {}", #call, cudaGetErrorString(colltune_err))); \
    }                                                                             \
  } while (0)

// ncclInProgress is how a non-blocking communicator (--nccl-blocking 0) says "queued".
#define COLLTUNE_NCCL_CHECK(call)                                               \
  do {                                                                          \
    const ncclResult_t colltune_res = (call);                                   \
    if (colltune_res != ncclSuccess && colltune_res != ncclInProgress) {        \
      throw ::colltune::NcclError(fmt::format("{} failed: {} ({})", #call,      \
                                              ncclGetErrorString(colltune_res), \
                                              ncclGetLastError(nullptr)));      \
    }                                                                           \
  } while (0)

namespace colltune {

// One GPU this process drives: its rank in the communicator, its stream and its counter for the
// check kernels.
struct Gpu {
  int ordinal = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  unsigned long long* wrong = nullptr;
  int compute_major = 0;
  DeviceInfo info;
};

// One pool per GPU, allocated once per launch for its largest size and lent to each size in turn
// (reserve()): NCCL keeps user-buffer registrations by address and releases a graph's lazily
// (register.cc, group.cc), so memory freed and allocated again at a reused address could meet a
// stale registration. nccl-tests likewise allocates once for the largest size.
struct ReservedPools {
  std::vector<int> ordinals;  // per GPU, in the order of NcclCommunicator::Impl::gpus
  std::vector<char*> pools;   // per GPU, `bytes` each
  std::uint64_t bytes = 0;
  bool nccl_allocated = false;  // from ncclMemAlloc: freed with ncclMemFree
  ~ReservedPools();
};

// `sets` buffer sets per GPU in one allocation, laid out by set_layout (one cudaMalloc however
// many sets --cache cold rotates through).
class DeviceBuffers : public Buffers {
 public:
  struct PerGpu {
    int ordinal = 0;       // the GPU the pool lives on
    char* pool = nullptr;  // sets x layout.stride_bytes
    // Captured graphs by (ops, first set): replayed instead of re-issuing the calls (-G).
    std::map<std::pair<int, std::size_t>, cudaGraphExec_t> graphs;
    RankExchange exchange;  // alltoallv: this GPU's rank's counts and offsets
  };
  std::vector<PerGpu> gpus;  // in the order of NcclCommunicator::Impl::gpus
  std::size_t sets = 1;
  SetLayout layout;
  std::size_t next = 0;  // the set the next op uses, on every GPU alike
  // The communicator's list of live buffers, which abort_all() reaches through; null once the
  // communicator is gone.
  std::set<DeviceBuffers*>* registry = nullptr;
  bool nccl_allocated = false;  // pools from ncclMemAlloc: freed with ncclMemFree
  // Set where the pools are the reservation's: kept alive while these buffers are, not freed here.
  std::shared_ptr<ReservedPools> lent;

  // Destroys the captured graphs: NCCL's abort and destroy wait until no graph references the
  // communicator (init.cc, commDestroySync), so they must go first.
  void destroy_graphs();
  ~DeviceBuffers() override;

  char* send(std::size_t gpu, std::size_t set) const {
    return gpus[gpu].pool + set * layout.stride_bytes;
  }
  char* recv(std::size_t gpu, std::size_t set) const {
    return send(gpu, set) + layout.recv_offset_bytes;
  }
};

struct NcclCommunicator::Impl {
  MpiWorld* world = nullptr;
  BackendOptions options;
  std::vector<Gpu> gpus;
  int nranks = 1;
  int gpus_per_node = 0;                    // the most ranks of the communicator on one host
  std::string split;                        // --split host: what the communicators are
  std::set<DeviceBuffers*> live_buffers;    // allocated here and not yet freed
  std::vector<char*> probe_scratch;         // per GPU, for probe(); freed with the communicator
  std::shared_ptr<ReservedPools> reserved;  // null: each allocate() allocates its own

  // Issues n ops on every GPU, op i on buffer set (first + i) mod sets.
  void issue(const Collective& c, DeviceBuffers& buffers, int n, std::size_t first);
  // Captures issue(c, buffers, n, first) on every GPU into graphs keyed (n, first) (-G).
  void capture(const Collective& c, DeviceBuffers& buffers, int n, std::size_t first);
  // Issues one op (pingpong: one half of it, `phase` 0 or 1) on every GPU, as one NCCL group so
  // that one thread can drive several GPUs.
  void enqueue_all(const Collective& c, DeviceBuffers& buffers, std::size_t set, int phase);
  void enqueue(const Gpu& gpu, const Collective& c, const DeviceBuffers::PerGpu& mine, void* send,
               void* recv, int phase) const;
  // gather and scatter from ncclSend/ncclRecv, as nccl-tests builds them; alltoallv likewise.
  void enqueue_rooted(const Gpu& gpu, const Collective& c, void* send, void* recv) const;
  void enqueue_alltoallv(const Gpu& gpu, const Collective& c, const RankExchange& x, void* send,
                         void* recv) const;
  void enqueue_p2p(const Gpu& gpu, const Collective& c, void* send, void* recv, int phase) const;
  // Ends a group; with a non-blocking communicator (--nccl-blocking 0) ncclGroupEnd may return
  // ncclInProgress before the kernels reach the streams, so this waits until every communicator
  // is ready: an event recorded or a capture ended earlier would miss the work.
  void end_group();
  // Aborts every communicator, after destroying the graphs that hold them: after a timeout or an
  // asynchronous error nothing may wait on them.
  void abort_all();
  // The setting in force for `knob`: this communicator's interleaved value, else the launch
  // environment's ("default" is that too); "" when unset.
  std::string knob_value(const char* knob) const;
  // Whether ncclGroupSimulateEnd can ask NCCL about an op without running it or risking the
  // communicators: blocking ones only, and over several of one process only without
  // NCCL_SINGLE_PROC_MEM_REG_ENABLE (group.cc: then a failing job aborts every one).
  bool can_probe() const;
};

// The GPUs this process drives: -g of them from --device, or from local rank x -g. Throws
// ConfigError on every rank alike when any rank lacks them, before anyone waits on NCCL; `wants`
// names what needs them ("--backend nccl").
std::vector<int> choose_devices(const MpiWorld& world, const BackendOptions& options,
                                std::string_view wants);

// Throws ConfigError on every rank alike when a rank's GPUs have too little free memory for one
// more communicator (`interleaved_knobs` > 0: --interleave holds one per setting). Collective.
void require_free_memory(const MpiWorld& world, const std::vector<int>& ordinals,
                         std::size_t interleaved_knobs);

// Name, memory and compute capability, and PCI bus id of GPU `ordinal`.
DeviceInfo device_info(int ordinal, int* compute_major = nullptr);

inline char* element_at(void* base, std::size_t elements, DType dtype) {
  return static_cast<char*>(base) + elements * element_bytes(dtype);
}

}  // namespace colltune
