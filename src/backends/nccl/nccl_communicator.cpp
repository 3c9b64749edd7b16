#include "backends/nccl/nccl_communicator.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <thread>
#include <tuple>
#include <vector>

#include "backends/nccl/device_validation.hpp"
#include "backends/nccl/nccl_types.hpp"
#include "core/errors.hpp"
#include "core/validation.hpp"

#define COLLTUNE_CUDA_CHECK(call)                                                 \
  do {                                                                            \
    const cudaError_t colltune_err = (call);                                      \
    if (colltune_err != cudaSuccess) {                                            \
      throw std::runtime_error(                                                   \
          fmt::format("{} failed: {}", #call, cudaGetErrorString(colltune_err))); \
    }                                                                             \
  } while (0)

#define COLLTUNE_NCCL_CHECK(call)                                            \
  do {                                                                       \
    const ncclResult_t colltune_res = (call);                                \
    if (colltune_res != ncclSuccess && colltune_res != ncclInProgress) {     \
      throw std::runtime_error(fmt::format("{} failed: {} ({})", #call,      \
                                           ncclGetErrorString(colltune_res), \
                                           ncclGetLastError(nullptr)));      \
    }                                                                        \
  } while (0)

namespace colltune {
namespace {

class DeviceBuffers : public Buffers {
 public:
  struct Set {
    void* send = nullptr;
    void* recv = nullptr;
  };
  std::vector<Set> sets;
  std::size_t next = 0;
  // Captured graphs by (ops, first set): replayed instead of re-issuing the calls (-G).
  std::map<std::pair<int, std::size_t>, cudaGraphExec_t> graphs;

  ~DeviceBuffers() override {
    for (auto& [key, exec] : graphs) cudaGraphExecDestroy(exec);
    for (auto& s : sets) {
      cudaFree(s.send);
      cudaFree(s.recv);
    }
  }
};

class EventTimer : public Timer {
 public:
  explicit EventTimer(cudaStream_t stream) : stream_(stream) {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() override { cudaEventRecord(start_, stream_); }
  double stop_seconds() override {
    cudaEventRecord(stop_, stream_);
    cudaEventSynchronize(stop_);
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return ms / 1e3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_{}, stop_{};
};

char* at(void* base, std::size_t elements, DType dtype) {
  return static_cast<char*>(base) + elements * element_bytes(dtype);
}

}  // namespace

struct NcclCommunicator::Impl {
  MpiWorld* world = nullptr;
  BackendOptions options;
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  unsigned long long* wrong = nullptr;  // device counter for the check kernels
  std::string gpu_description;

  // With blocking = 0, NCCL calls return ncclInProgress until the communicator is ready.
  void wait_ready() const {
    ncclResult_t state = ncclInProgress;
    while (state == ncclInProgress) COLLTUNE_NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
  }

  void enqueue(const Collective& c, void* send, void* recv);
  void enqueue_p2p(const Collective& c, void* send, void* recv);
};

NcclCommunicator::NcclCommunicator(MpiWorld& world, const BackendOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->world = &world;
  impl_->options = options;
  int visible = 0;
  const cudaError_t err = cudaGetDeviceCount(&visible);
  // Every rank must hear about a rank without a GPU before anyone waits on NCCL.
  const bool usable = err == cudaSuccess && visible > 0;
  if (world.sum_over_ranks(usable ? 0 : 1) > 0) {
    const char* mask = std::getenv("CUDA_VISIBLE_DEVICES");
    throw ConfigError(fmt::format(
        "--backend nccl: no CUDA device on {} (looked with cudaGetDeviceCount: {}; "
        "CUDA_VISIBLE_DEVICES={}); allowed: a host with a GPU, or --backend mpi",
        usable ? "another rank's host" : world.host(),
        err == cudaSuccess ? fmt::format("{} devices", visible) : cudaGetErrorString(err),
        mask ? mask : "unset"));
  }
  impl_->device = options.device >= 0 ? options.device : world.local_rank() % visible;
  COLLTUNE_CUDA_CHECK(cudaSetDevice(impl_->device));
  COLLTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  COLLTUNE_CUDA_CHECK(
      cudaMalloc(reinterpret_cast<void**>(&impl_->wrong), sizeof(unsigned long long)));
  cudaDeviceProp prop{};
  COLLTUNE_CUDA_CHECK(cudaGetDeviceProperties(&prop, impl_->device));
  char bus[32] = "";
  cudaDeviceGetPCIBusId(bus, sizeof(bus), impl_->device);
  impl_->gpu_description =
      fmt::format("{} (bus {}, {} MiB)", prop.name, bus, prop.totalGlobalMem >> 20);

  ncclUniqueId id{};
  if (world.rank() == 0) COLLTUNE_NCCL_CHECK(ncclGetUniqueId(&id));
  world.broadcast_bytes(&id, sizeof(id));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (options.nccl_blocking >= 0) config.blocking = options.nccl_blocking;
  if (options.cga_cluster_size >= 0) config.cgaClusterSize = options.cga_cluster_size;
  if (options.min_ctas >= 0) config.minCTAs = options.min_ctas;
  if (options.max_ctas >= 0) config.maxCTAs = options.max_ctas;
  if (!options.net_name.empty()) config.netName = impl_->options.net_name.c_str();
  COLLTUNE_NCCL_CHECK(
      ncclCommInitRankConfig(&impl_->comm, world.size(), id, world.rank(), &config));
  impl_->wait_ready();
}

NcclCommunicator::~NcclCommunicator() {
  if (impl_->comm != nullptr) {
    // While an exception unwinds, peers may be inside a collective: abort, never wait.
    if (std::uncaught_exceptions() > 0) {
      ncclCommAbort(impl_->comm);
    } else {
      ncclCommDestroy(impl_->comm);
    }
  }
  if (impl_->wrong != nullptr) cudaFree(impl_->wrong);
  if (impl_->stream != nullptr) cudaStreamDestroy(impl_->stream);
}

std::map<std::string, std::string> NcclCommunicator::library_versions() const {
  int nccl = 0, runtime = 0, driver = 0;
  ncclGetVersion(&nccl);
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  return {{"nccl", fmt::format("{}.{}.{}", nccl / 10000, (nccl / 100) % 100, nccl % 100)},
          {"cuda_runtime", fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10)},
          {"cuda_driver", fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10)},
          {"gpu", impl_->gpu_description},
          {"mpi", MpiWorld::library_version()}};
}

std::string NcclCommunicator::device_bus_id() const {
  char bus[32] = "";
  cudaDeviceGetPCIBusId(bus, sizeof(bus), impl_->device);
  return bus;
}

std::optional<std::string> NcclCommunicator::unsupported(const Collective& c) const {
  const int n = impl_->world->size();
  if (!nccl_type(c.dtype)) return "this dtype has no NCCL type";
  if (is_point_to_point(c.kind)) {
    if (n % 2 != 0) return "point-to-point needs an even number of ranks (pairs r, r+n/2)";
    if (c.in_place) return "point-to-point has no in-place form";
  }
  if (c.in_place && (c.kind == CollKind::kAlltoall || c.kind == CollKind::kSendrecv)) {
    return "NCCL send/recv cannot overlap their buffers (no in-place form)";
  }
  return std::nullopt;
}

std::unique_ptr<Buffers> NcclCommunicator::allocate(const Collective& c, std::size_t sets) {
  const BufferCounts counts = buffer_counts(c, impl_->world->size());
  const std::size_t elem = element_bytes(c.dtype);
  auto buffers = std::make_unique<DeviceBuffers>();
  for (std::size_t i = 0; i < std::max<std::size_t>(sets, 1); ++i) {
    DeviceBuffers::Set set;
    if (counts.send > 0) COLLTUNE_CUDA_CHECK(cudaMalloc(&set.send, counts.send * elem));
    COLLTUNE_CUDA_CHECK(cudaMalloc(&set.recv, std::max<std::size_t>(counts.recv, 1) * elem));
    buffers->sets.push_back(set);
  }
  return buffers;
}

void NcclCommunicator::Impl::enqueue(const Collective& c, void* send, void* recv) {
  const ncclDataType_t type = *nccl_type(c.dtype);
  const int rank = world->rank();
  const int n = world->size();
  const std::size_t count = c.count;
  void* src = c.in_place ? recv : send;
  switch (c.kind) {
    case CollKind::kAllreduce:
      COLLTUNE_NCCL_CHECK(ncclAllReduce(src, recv, count, type, *nccl_op(c.op), comm, stream));
      return;
    case CollKind::kReduce:
      COLLTUNE_NCCL_CHECK(ncclReduce(src, recv, count, type, *nccl_op(c.op), c.root, comm, stream));
      return;
    case CollKind::kReduceScatter:
      // In place, NCCL's result lands at recv + rank * count (check() looks there).
      COLLTUNE_NCCL_CHECK(ncclReduceScatter(src,
                                            c.in_place ? at(recv, rank * count, c.dtype) : recv,
                                            count, type, *nccl_op(c.op), comm, stream));
      return;
    case CollKind::kAllgather:
      COLLTUNE_NCCL_CHECK(ncclAllGather(c.in_place ? at(recv, rank * count, c.dtype) : send, recv,
                                        count, type, comm, stream));
      return;
    case CollKind::kBroadcast:
      COLLTUNE_NCCL_CHECK(ncclBroadcast(src, recv, count, type, c.root, comm, stream));
      return;
    case CollKind::kAlltoall:
      COLLTUNE_NCCL_CHECK(ncclGroupStart());
      for (int peer = 0; peer < n; ++peer) {
        COLLTUNE_NCCL_CHECK(
            ncclSend(at(send, peer * count, c.dtype), count, type, peer, comm, stream));
        COLLTUNE_NCCL_CHECK(
            ncclRecv(at(recv, peer * count, c.dtype), count, type, peer, comm, stream));
      }
      COLLTUNE_NCCL_CHECK(ncclGroupEnd());
      return;
    case CollKind::kSendrecv:
      COLLTUNE_NCCL_CHECK(ncclGroupStart());
      COLLTUNE_NCCL_CHECK(ncclSend(send, count, type, (rank + 1) % n, comm, stream));
      COLLTUNE_NCCL_CHECK(ncclRecv(recv, count, type, (rank + n - 1) % n, comm, stream));
      COLLTUNE_NCCL_CHECK(ncclGroupEnd());
      return;
    case CollKind::kPingpong:
    case CollKind::kUniBw:
    case CollKind::kBiBw:
      enqueue_p2p(c, send, recv);
      return;
  }
}

void NcclCommunicator::Impl::enqueue_p2p(const Collective& c, void* send, void* recv) {
  const ncclDataType_t type = *nccl_type(c.dtype);
  const int rank = world->rank();
  const int peer = p2p_peer(rank, world->size());
  const bool initiator = rank < world->size() / 2;
  if (c.kind == CollKind::kPingpong) {
    // Not grouped: the reply may only leave once the request has arrived.
    if (initiator) {
      COLLTUNE_NCCL_CHECK(ncclSend(send, c.count, type, peer, comm, stream));
      COLLTUNE_NCCL_CHECK(ncclRecv(recv, c.count, type, peer, comm, stream));
    } else {
      COLLTUNE_NCCL_CHECK(ncclRecv(recv, c.count, type, peer, comm, stream));
      COLLTUNE_NCCL_CHECK(ncclSend(send, c.count, type, peer, comm, stream));
    }
    return;
  }
  const bool sends = c.kind == CollKind::kBiBw || initiator;
  const bool receives = c.kind == CollKind::kBiBw || !initiator;
  COLLTUNE_NCCL_CHECK(ncclGroupStart());
  for (int w = 0; w < c.window; ++w) {
    if (sends) COLLTUNE_NCCL_CHECK(ncclSend(send, c.count, type, peer, comm, stream));
    if (receives) COLLTUNE_NCCL_CHECK(ncclRecv(recv, c.count, type, peer, comm, stream));
  }
  COLLTUNE_NCCL_CHECK(ncclGroupEnd());
}

void NcclCommunicator::launch(const Collective& c, Buffers& buffers, int n) {
  auto& device = static_cast<DeviceBuffers&>(buffers);
  const std::size_t first = device.next;
  const auto issue = [&] {
    for (int i = 0; i < n; ++i) {
      auto& set = device.sets[(first + static_cast<std::size_t>(i)) % device.sets.size()];
      impl_->enqueue(c, set.send, set.recv);
    }
  };
  device.next = (first + static_cast<std::size_t>(n)) % device.sets.size();
  if (!impl_->options.graph) {
    issue();
    return;
  }
  auto& exec = device.graphs[{n, first}];
  if (exec == nullptr) {
    cudaGraph_t graph = nullptr;
    COLLTUNE_CUDA_CHECK(cudaStreamBeginCapture(impl_->stream, cudaStreamCaptureModeThreadLocal));
    issue();
    COLLTUNE_CUDA_CHECK(cudaStreamEndCapture(impl_->stream, &graph));
    COLLTUNE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaGraphDestroy(graph);
  }
  COLLTUNE_CUDA_CHECK(cudaGraphLaunch(exec, impl_->stream));
}

void NcclCommunicator::synchronize(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const cudaError_t state = cudaStreamQuery(impl_->stream);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) {
      throw std::runtime_error(
          fmt::format("cudaStreamQuery failed: {}", cudaGetErrorString(state)));
    }
    ncclResult_t async = ncclSuccess;
    ncclCommGetAsyncError(impl_->comm, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      ncclCommAbort(impl_->comm);
      impl_->comm = nullptr;
      throw std::runtime_error(fmt::format("NCCL asynchronous error on GPU {}: {} ({})",
                                           impl_->device, ncclGetErrorString(async),
                                           ncclGetLastError(nullptr)));
    }
    if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) {
      ncclCommAbort(impl_->comm);
      impl_->comm = nullptr;
      throw TimeoutError(
          fmt::format("GPU {} did not finish within {} ms (--timeout); communicator "
                      "aborted",
                      impl_->device, timeout.count()));
    }
    std::this_thread::yield();
  }
}

std::unique_ptr<Timer> NcclCommunicator::timer() {
  return std::make_unique<EventTimer>(impl_->stream);
}

void NcclCommunicator::fill(const Collective& c, Buffers& buffers, const Pattern& p) {
  auto& device = static_cast<DeviceBuffers&>(buffers);
  auto& set = device.sets[0];
  const int n = impl_->world->size();
  const BufferCounts counts = buffer_counts(c, n);
  COLLTUNE_CUDA_CHECK(
      cudaMemsetAsync(set.recv, 0xFF, counts.recv * element_bytes(c.dtype), impl_->stream));
  for (const Block& b : input_blocks(c, n, impl_->world->rank())) {
    device_fill(c.dtype, at(b.in_recv ? set.recv : set.send, b.offset, c.dtype), b.count,
                p.params(), b.source_rank, b.first_index, impl_->stream);
  }
  COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  device.next = 0;
}

std::uint64_t NcclCommunicator::check(const Collective& c, Buffers& buffers, const Pattern& p,
                                      bool corrupt_one) {
  auto& set = static_cast<DeviceBuffers&>(buffers).sets[0];
  const int n = impl_->world->size();
  const int rank = impl_->world->rank();
  // In place, NCCL's reduce_scatter leaves each rank's block where it was in the input.
  char* out = c.kind == CollKind::kReduceScatter && c.in_place
                  ? at(set.recv, rank * c.count, c.dtype)
                  : static_cast<char*>(set.recv);
  const int corrupt_rank = c.kind == CollKind::kReduce ? c.root : n - 1;
  if (corrupt_one && rank == corrupt_rank && c.count > 0) {
    unsigned char byte = 0;
    COLLTUNE_CUDA_CHECK(cudaMemcpy(&byte, out, 1, cudaMemcpyDeviceToHost));
    byte ^= 1;
    COLLTUNE_CUDA_CHECK(cudaMemcpy(out, &byte, 1, cudaMemcpyHostToDevice));
  }
  COLLTUNE_CUDA_CHECK(cudaMemsetAsync(impl_->wrong, 0, sizeof(unsigned long long), impl_->stream));
  for (const Block& b : expected_blocks(c, n, rank)) {
    device_count_wrong(c.dtype, at(out, b.offset, c.dtype), b.count, p.params(), b.source_rank,
                       b.first_index, impl_->wrong, impl_->stream);
  }
  unsigned long long wrong = 0;
  COLLTUNE_CUDA_CHECK(
      cudaMemcpyAsync(&wrong, impl_->wrong, sizeof(wrong), cudaMemcpyDeviceToHost, impl_->stream));
  COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  return wrong;
}

}  // namespace colltune
