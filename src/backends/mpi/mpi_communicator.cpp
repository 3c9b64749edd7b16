#include "backends/mpi/mpi_communicator.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <vector>

#include "backends/mpi/mpi_cuda_aware.hpp"
#include "backends/mpi/mpi_tool_knobs.hpp"
#include "backends/mpi/mpi_types.hpp"
#include "comm/device_memory.hpp"
#include "core/errors.hpp"
#include "core/exchange.hpp"
#include "core/validation.hpp"
#include "knobs/interleave.hpp"

#define COLLTUNE_MPI_CHECK(call)                                                     \
  do {                                                                               \
    const int colltune_rc = (call);                                                  \
    if (colltune_rc != MPI_SUCCESS) ::colltune::throw_mpi_error(colltune_rc, #call); \
  } while (0)

namespace colltune {

[[noreturn]] void throw_mpi_error(int rc, const char* call) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  const std::string_view function(call, std::strcspn(call, "("));
  throw MpiError(fmt::format("{} failed: {}", function, std::string(text, length)));
}

namespace {

constexpr int kTag = 17;
constexpr int kAckTag = 18;

// Host memory, or device memory under --buffers device, with the deleter that frees it.
using Memory = std::unique_ptr<void, std::function<void(void*)>>;

Memory allocate_host(std::size_t bytes) {
  constexpr std::size_t kPage = 4096;
  const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  void* p = std::aligned_alloc(kPage, rounded == 0 ? kPage : rounded);
  if (p == nullptr) throw std::runtime_error(fmt::format("out of host memory for {} bytes", bytes));
  std::memset(p, 0, rounded == 0 ? kPage : rounded);  // fault pages in before any timing
  return Memory(p, [](void* memory) { std::free(memory); });
}

// `sets` buffer sets in one allocation (host, or the GPU with --buffers device), laid out by
// set_layout.
class MpiBuffers : public Buffers {
 public:
  Memory pool;
  std::size_t sets = 1;
  SetLayout layout;
  std::size_t next = 0;  // the set the next op uses

  char* send(std::size_t set) const {
    return static_cast<char*>(pool.get()) + set * layout.stride_bytes;
  }
  char* recv(std::size_t set) const { return send(set) + layout.recv_offset_bytes; }
};

// MPI_Alltoallv's int arguments for one (mean count, pattern): worked out untimed, in allocate().
struct AlltoallvArguments {
  std::size_t count = 0;
  Exchange exchange;
  bool ready = false;
  std::vector<int> send_counts, send_offsets, recv_counts, recv_offsets;

  bool matches(const Collective& c) const {
    return ready && count == c.count && exchange.kind == c.exchange.kind &&
           exchange.parameter == c.exchange.parameter && exchange.seed == c.exchange.seed;
  }
};

std::vector<int> as_ints(const std::vector<std::size_t>& values) {
  return {values.begin(), values.end()};  // unsupported() kept every value within INT_MAX
}

}  // namespace

struct MpiCommunicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> requests;
  int ack = 0;
  AlltoallvArguments alltoallv;
  std::unique_ptr<DeviceMemory> device;  // --buffers device; null for host buffers
  // MPICH's algorithm variables, read at every call: written before this communicator's calls.
  std::optional<PerCallKnobs> per_call;
  std::string split;  // --split host: what the communicators are, for the run context

  const AlltoallvArguments& alltoallv_for(const Collective& c, int nranks, int rank) {
    if (!alltoallv.matches(c)) {
      const RankExchange x = rank_exchange(c, nranks, rank);
      alltoallv = {c.count,
                   c.exchange,
                   true,
                   as_ints(x.send_counts),
                   as_ints(x.send_offsets),
                   as_ints(x.recv_counts),
                   as_ints(x.recv_offsets)};
    }
    return alltoallv;
  }
};

MpiCommunicator::MpiCommunicator(const MpiWorld& world, const BackendOptions& options,
                                 const DeviceMemoryOpener& open_device)
    : impl_(std::make_unique<Impl>()), rank_(world.rank()), size_(world.size()) {
  if (options.device_memory) {
    // Before any allocation, and alike on every rank: CUDA-awareness first, then a GPU.
    const auto why_not = not_cuda_aware();
    if (world.sum_over_ranks(why_not ? 1 : 0) > 0) {
      throw ConfigError(fmt::format(
          "--buffers device: {}; allowed: --buffers host, or an MPI built CUDA-aware (Open MPI "
          "--with-cuda, or UCX with its cuda transports)",
          why_not.value_or("another rank's MPI is not CUDA-aware")));
    }
    if (!open_device) {
      throw ConfigError(
          "--buffers device: this colltune was built without CUDA; allowed: --buffers host");
    }
    impl_->device = open_device();
  }
  std::map<std::string, std::string> mca;  // ompi_info's names, without OMPI_MCA_
  std::map<std::string, std::string> per_call;
  for (const auto& [env_name, value] : options.in_process_knobs) {
    if (env_name.starts_with("OMPI_MCA_")) mca[std::string(parameter_name(env_name))] = value;
    if (env_name.starts_with("MPIR_CVAR_")) per_call[env_name] = value;
  }
  write_mpi_t_knobs(mca);
  if (!per_call.empty()) impl_->per_call.emplace(per_call);
  if (options.split_by_host) {
    const HostGroups groups = host_groups(world);
    COLLTUNE_MPI_CHECK(MPI_Comm_split(MPI_COMM_WORLD, groups.host, world.rank(), &impl_->comm));
    rank_ = groups.rank_in_host;
    size_ = groups.ranks_per_host[static_cast<std::size_t>(groups.host)];
    impl_->split = fmt::format("by host: {} communicators of {} ranks, measuring at once",
                               groups.ranks_per_host.size(), size_);
  } else {
    COLLTUNE_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &impl_->comm));
  }
  MPI_Comm_set_errhandler(impl_->comm, MPI_ERRORS_RETURN);
}

MpiCommunicator::~MpiCommunicator() {
  // Freeing is collective; while an exception unwinds the job is about to be aborted instead.
  if (impl_->comm != MPI_COMM_NULL && std::uncaught_exceptions() == 0) MPI_Comm_free(&impl_->comm);
}

std::map<std::string, std::string> MpiCommunicator::library_versions() const {
  return {{"mpi", MpiWorld::library_version()}};
}

bool MpiCommunicator::buffers_shareable() const { return !impl_->device; }

std::vector<DeviceInfo> MpiCommunicator::devices() const {
  if (!impl_->device) return {};
  return {impl_->device->device()};
}

std::map<std::string, std::string> MpiCommunicator::settings() const {
  std::map<std::string, std::string> out{{"memory", impl_->device ? "device" : "host"}};
  if (!impl_->split.empty()) out["split"] = impl_->split;
  return out;
}

std::optional<std::string> MpiCommunicator::unsupported(const Collective& c) const {
  if (is_reduction(c.kind)) {
    if (c.op == ReduceOp::kAvg) return "MPI has no avg reduction (NCCL has)";
    if (!mpi_can_reduce(c.dtype))
      return fmt::format("MPI cannot reduce {} (NCCL can)", name(c.dtype));
  }
  if (is_point_to_point(c.kind)) {
    if (size_ % 2 != 0) return "point-to-point needs an even number of ranks (pairs r, r+n/2)";
    if (c.in_place) return "point-to-point has no in-place form";
  }
  if (auto reason = layout_unsupported(c)) return reason;
  const BufferCounts counts = buffer_counts(c, size_);
  if (std::max(counts.send, counts.recv) > static_cast<std::size_t>(INT_MAX)) {
    return "the element count exceeds MPI's int count";
  }
  return std::nullopt;
}

std::unique_ptr<Buffers> MpiCommunicator::allocate(const Collective& c, std::size_t sets) {
  auto buffers = std::make_unique<MpiBuffers>();
  buffers->sets = std::max<std::size_t>(sets, 1);
  buffers->layout = set_layout(c, size_);
  const std::size_t bytes = buffers->sets * buffers->layout.stride_bytes;
  if (DeviceMemory* device = impl_->device.get()) {
    buffers->pool = Memory(device->allocate(bytes), [device](void* m) { device->release(m); });
  } else {
    buffers->pool = allocate_host(bytes);
  }
  if (c.kind == CollKind::kAlltoallv) impl_->alltoallv_for(c, size_, rank_);
  return buffers;
}

void MpiCommunicator::activate() {
  if (impl_->per_call) impl_->per_call->put_in_force();
}

void MpiCommunicator::launch(const Collective& c, Buffers& buffers, int n) {
  activate();  // a no-op when in force already, as timed batches find it (activated untimed)
  auto& host = static_cast<MpiBuffers&>(buffers);
  for (int i = 0; i < n; ++i) {
    const std::size_t set = host.next;
    host.next = (host.next + 1) % host.sets;
    run_one(c, host.send(set), host.recv(set));
  }
}

void MpiCommunicator::run_one(const Collective& c, void* send, void* recv) {
  const MPI_Comm comm = impl_->comm;
  const MPI_Datatype type = mpi_type(c.dtype);
  const MPI_Op op = mpi_op(c.op);
  const int count = static_cast<int>(c.count);
  const bool in_place = c.in_place;
  const void* src = in_place ? MPI_IN_PLACE : send;
  switch (c.kind) {
    case CollKind::kAllreduce:
      COLLTUNE_MPI_CHECK(MPI_Allreduce(src, recv, count, type, op, comm));
      return;
    case CollKind::kReduce:
      if (in_place && rank_ != c.root) src = recv;
      COLLTUNE_MPI_CHECK(MPI_Reduce(src, recv, count, type, op, c.root, comm));
      return;
    case CollKind::kReduceScatter:
      COLLTUNE_MPI_CHECK(MPI_Reduce_scatter_block(src, recv, count, type, op, comm));
      return;
    case CollKind::kAllgather:
      COLLTUNE_MPI_CHECK(MPI_Allgather(
          src, in_place ? 0 : count, in_place ? MPI_DATATYPE_NULL : type, recv, count, type, comm));
      return;
    case CollKind::kAlltoall:
      COLLTUNE_MPI_CHECK(MPI_Alltoall(
          src, in_place ? 0 : count, in_place ? MPI_DATATYPE_NULL : type, recv, count, type, comm));
      return;
    case CollKind::kAlltoallv: {
      const AlltoallvArguments& v = impl_->alltoallv_for(c, size_, rank_);
      COLLTUNE_MPI_CHECK(MPI_Alltoallv(send, v.send_counts.data(), v.send_offsets.data(), type,
                                       recv, v.recv_counts.data(), v.recv_offsets.data(), type,
                                       comm));
      return;
    }
    case CollKind::kGather: {
      // In place only the root's block stays put; the other ranks send from their input.
      const bool root_in_place = in_place && rank_ == c.root;
      COLLTUNE_MPI_CHECK(MPI_Gather(root_in_place ? MPI_IN_PLACE : (in_place ? recv : send), count,
                                    type, recv, count, type, c.root, comm));
      return;
    }
    case CollKind::kScatter: {
      // In place the root's input is in recv and its own block stays there (MPI_IN_PLACE).
      const bool root_in_place = in_place && rank_ == c.root;
      COLLTUNE_MPI_CHECK(MPI_Scatter(in_place ? recv : send, count, type,
                                     root_in_place ? MPI_IN_PLACE : recv, count, type, c.root,
                                     comm));
      return;
    }
    case CollKind::kBarrier:
      COLLTUNE_MPI_CHECK(MPI_Barrier(comm));
      return;
    case CollKind::kBroadcast:
      // MPI_Bcast has one buffer; out of place the root sends from its own input buffer.
      COLLTUNE_MPI_CHECK(
          MPI_Bcast(!in_place && rank_ == c.root ? send : recv, count, type, c.root, comm));
      return;
    case CollKind::kSendrecv: {
      const int right = (rank_ + 1) % size_;
      const int left = (rank_ + size_ - 1) % size_;
      if (in_place) {
        COLLTUNE_MPI_CHECK(MPI_Sendrecv_replace(recv, count, type, right, kTag, left, kTag, comm,
                                                MPI_STATUS_IGNORE));
      } else {
        COLLTUNE_MPI_CHECK(MPI_Sendrecv(send, count, type, right, kTag, recv, count, type, left,
                                        kTag, comm, MPI_STATUS_IGNORE));
      }
      return;
    }
    case CollKind::kPingpong:
    case CollKind::kUniBw:
    case CollKind::kBiBw:
      run_p2p(c, send, recv);
      return;
  }
}

void MpiCommunicator::run_p2p(const Collective& c, void* send, void* recv) {
  const MPI_Comm comm = impl_->comm;
  const MPI_Datatype type = mpi_type(c.dtype);
  const int count = static_cast<int>(c.count);
  const int peer = p2p_peer(rank_, size_);
  const bool initiator = rank_ < size_ / 2;
  if (c.kind == CollKind::kPingpong) {
    if (initiator) {
      COLLTUNE_MPI_CHECK(MPI_Send(send, count, type, peer, kTag, comm));
      COLLTUNE_MPI_CHECK(MPI_Recv(recv, count, type, peer, kTag, comm, MPI_STATUS_IGNORE));
    } else {
      COLLTUNE_MPI_CHECK(MPI_Recv(recv, count, type, peer, kTag, comm, MPI_STATUS_IGNORE));
      COLLTUNE_MPI_CHECK(MPI_Send(send, count, type, peer, kTag, comm));
    }
    return;
  }
  auto& requests = impl_->requests;
  requests.assign(static_cast<std::size_t>(2 * c.window), MPI_REQUEST_NULL);
  const bool receives = c.kind == CollKind::kBiBw || !initiator;
  const bool sends = c.kind == CollKind::kBiBw || initiator;
  // Receives first, as OSU does, so no message arrives unexpected.
  for (int w = 0; receives && w < c.window; ++w) {
    COLLTUNE_MPI_CHECK(MPI_Irecv(recv, count, type, peer, kTag, comm, &requests[w]));
  }
  for (int w = 0; sends && w < c.window; ++w) {
    COLLTUNE_MPI_CHECK(MPI_Isend(send, count, type, peer, kTag, comm, &requests[c.window + w]));
  }
  COLLTUNE_MPI_CHECK(
      MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  if (c.kind == CollKind::kUniBw) {
    // The window ends when the receiver has everything, not when the sends are buffered.
    if (initiator) {
      COLLTUNE_MPI_CHECK(MPI_Recv(&impl_->ack, 1, MPI_INT, peer, kAckTag, comm, MPI_STATUS_IGNORE));
    } else {
      COLLTUNE_MPI_CHECK(MPI_Send(&impl_->ack, 1, MPI_INT, peer, kAckTag, comm));
    }
  }
}

std::unique_ptr<Timer> MpiCommunicator::timer() {
  class WtimeTimer : public Timer {
   public:
    // MPI calls here are blocking: the work is done when launch() returns.
    void start() override { start_ = MPI_Wtime(); }
    void stop() override { stop_ = MPI_Wtime(); }
    double seconds() override { return stop_ - start_; }

   private:
    double start_ = 0;
    double stop_ = 0;
  };
  return std::make_unique<WtimeTimer>();
}

void MpiCommunicator::fill(const Collective& c, Buffers& buffers, const Pattern& p) {
  auto& mine = static_cast<MpiBuffers&>(buffers);
  if (impl_->device) {
    impl_->device->fill(c, size_, rank_, p, mine.send(0), mine.recv(0));
  } else {
    fill_for(c, size_, rank_, p, mine.send(0), mine.recv(0));
  }
  mine.next = 0;
}

std::uint64_t MpiCommunicator::check(const Collective& c, Buffers& buffers, const Pattern& p,
                                     bool corrupt_one) {
  auto& host = static_cast<MpiBuffers&>(buffers);  // host or device memory
  // MPI_Bcast's root keeps its data where it sent it from; that is its output.
  const bool root_sends = c.kind == CollKind::kBroadcast && !c.in_place && rank_ == c.root;
  void* out = root_sends ? host.send(0) : host.recv(0);
  // The corrupting ranks must be ones whose output is checked: the root of a reduce, the last
  // rank (a receiver) of point-to-point, every rank of the other collectives, so that a #wrong
  // not summed over ranks shows.
  const bool corrupts = c.kind == CollKind::kReduce || c.kind == CollKind::kGather ? rank_ == c.root
                        : is_point_to_point(c.kind) || c.kind == CollKind::kSendrecv
                            ? rank_ == size_ - 1
                            : true;
  const auto at = first_checked_element(c, size_, rank_);
  DeviceMemory* device = impl_->device.get();
  if (corrupt_one && corrupts && at) {
    unsigned char* byte = static_cast<unsigned char*>(out) + *at * element_bytes(c.dtype);
    if (device) {
      device->flip_byte(byte);
    } else {
      *byte ^= 1;
    }
  }
  return device ? device->count_wrong(c, size_, rank_, p, out)
                : count_wrong_for(c, size_, rank_, p, out);
}

}  // namespace colltune
