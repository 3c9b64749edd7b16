// Issuing operations (NcclCommunicator::Impl) and device-side validation (fill, check).

#include "backends/nccl/device_validation.hpp"
#include "backends/nccl/nccl_state.hpp"
#include "backends/nccl/nccl_types.hpp"
#include "core/validation.hpp"

namespace colltune {

void NcclCommunicator::Impl::enqueue_all(const Collective& c, DeviceBuffers& buffers,
                                         std::size_t set, int phase) {
  COLLTUNE_NCCL_CHECK(ncclGroupStart());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    enqueue(gpus[g], c, buffers.gpus[g], buffers.send(g, set), buffers.recv(g, set), phase);
  }
  end_group();
}

void NcclCommunicator::Impl::end_group() {
  if (ncclResult_t result = ncclGroupEnd(); result != ncclInProgress) {
    COLLTUNE_NCCL_CHECK(result);
    return;
  }
  for (const Gpu& gpu : gpus) {
    ncclResult_t state = ncclInProgress;
    while (state == ncclInProgress) COLLTUNE_NCCL_CHECK(ncclCommGetAsyncError(gpu.comm, &state));
    if (state != ncclSuccess) {
      throw NcclError(fmt::format("GPU {} ({}): non-blocking NCCL group failed: {} ({})",
                                  gpu.ordinal, gpu.info.bus_id, ncclGetErrorString(state),
                                  ncclGetLastError(gpu.comm)));
    }
  }
}

void NcclCommunicator::Impl::enqueue(const Gpu& gpu, const Collective& c,
                                     const DeviceBuffers::PerGpu& mine, void* send, void* recv,
                                     int phase) const {
  const ncclDataType_t type = *nccl_type(c.dtype);
  const int rank = gpu.rank;
  const int n = nranks;
  const std::size_t count = c.count;
  ncclComm_t comm = gpu.comm;
  cudaStream_t stream = gpu.stream;
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
      COLLTUNE_NCCL_CHECK(
          ncclReduceScatter(src, c.in_place ? element_at(recv, rank * count, c.dtype) : recv, count,
                            type, *nccl_op(c.op), comm, stream));
      return;
    case CollKind::kAllgather:
      COLLTUNE_NCCL_CHECK(ncclAllGather(c.in_place ? element_at(recv, rank * count, c.dtype) : send,
                                        recv, count, type, comm, stream));
      return;
    case CollKind::kBroadcast:
      COLLTUNE_NCCL_CHECK(ncclBroadcast(src, recv, count, type, c.root, comm, stream));
      return;
    case CollKind::kAlltoall:
      // Nested inside enqueue_all's group: NCCL fuses the sends and receives into one op.
      for (int peer = 0; peer < n; ++peer) {
        COLLTUNE_NCCL_CHECK(
            ncclSend(element_at(send, peer * count, c.dtype), count, type, peer, comm, stream));
        COLLTUNE_NCCL_CHECK(
            ncclRecv(element_at(recv, peer * count, c.dtype), count, type, peer, comm, stream));
      }
      return;
    case CollKind::kAlltoallv:
      enqueue_alltoallv(gpu, c, mine.exchange, send, recv);
      return;
    case CollKind::kGather:
    case CollKind::kScatter:
      enqueue_rooted(gpu, c, send, recv);
      return;
    case CollKind::kBarrier:  // unsupported() refuses it
      return;
    case CollKind::kSendrecv:
      COLLTUNE_NCCL_CHECK(ncclSend(send, count, type, (rank + 1) % n, comm, stream));
      COLLTUNE_NCCL_CHECK(ncclRecv(recv, count, type, (rank + n - 1) % n, comm, stream));
      return;
    case CollKind::kPingpong:
    case CollKind::kUniBw:
    case CollKind::kBiBw:
      enqueue_p2p(gpu, c, send, recv, phase);
      return;
  }
}

void NcclCommunicator::Impl::enqueue_rooted(const Gpu& gpu, const Collective& c, void* send,
                                            void* recv) const {
  const ncclDataType_t type = *nccl_type(c.dtype);
  const std::size_t count = c.count;
  const bool root = gpu.rank == c.root;
  // In place the root's own block is already where it belongs: no copy to itself.
  const bool skip_self = c.in_place && root;
  if (c.kind == CollKind::kGather) {
    if (!skip_self) {
      COLLTUNE_NCCL_CHECK(
          ncclSend(c.in_place ? recv : send, count, type, c.root, gpu.comm, gpu.stream));
    }
    for (int peer = 0; root && peer < nranks; ++peer) {
      if (peer == gpu.rank && skip_self) continue;
      COLLTUNE_NCCL_CHECK(ncclRecv(element_at(recv, peer * count, c.dtype), count, type, peer,
                                   gpu.comm, gpu.stream));
    }
    return;
  }
  void* const input = c.in_place ? recv : send;  // the root's n blocks
  for (int peer = 0; root && peer < nranks; ++peer) {
    if (peer == gpu.rank && skip_self) continue;
    COLLTUNE_NCCL_CHECK(ncclSend(element_at(input, peer * count, c.dtype), count, type, peer,
                                 gpu.comm, gpu.stream));
  }
  if (!skip_self) COLLTUNE_NCCL_CHECK(ncclRecv(recv, count, type, c.root, gpu.comm, gpu.stream));
}

void NcclCommunicator::Impl::enqueue_alltoallv(const Gpu& gpu, const Collective& c,
                                               const RankExchange& x, void* send,
                                               void* recv) const {
  const ncclDataType_t type = *nccl_type(c.dtype);
  // Both sides of a pair know its count, so a zero block is skipped on both.
  for (int peer = 0; peer < nranks; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    if (x.send_counts[p] > 0) {
      COLLTUNE_NCCL_CHECK(ncclSend(element_at(send, x.send_offsets[p], c.dtype), x.send_counts[p],
                                   type, peer, gpu.comm, gpu.stream));
    }
    if (x.recv_counts[p] > 0) {
      COLLTUNE_NCCL_CHECK(ncclRecv(element_at(recv, x.recv_offsets[p], c.dtype), x.recv_counts[p],
                                   type, peer, gpu.comm, gpu.stream));
    }
  }
}

void NcclCommunicator::Impl::enqueue_p2p(const Gpu& gpu, const Collective& c, void* send,
                                         void* recv, int phase) const {
  const ncclDataType_t type = *nccl_type(c.dtype);
  const int peer = p2p_peer(gpu.rank, nranks);
  const bool initiator = gpu.rank < nranks / 2;
  if (c.kind == CollKind::kPingpong) {
    // Phase 0 carries the request, phase 1 the reply; stream order makes each side wait.
    if (initiator == (phase == 0)) {
      COLLTUNE_NCCL_CHECK(ncclSend(send, c.count, type, peer, gpu.comm, gpu.stream));
    } else {
      COLLTUNE_NCCL_CHECK(ncclRecv(recv, c.count, type, peer, gpu.comm, gpu.stream));
    }
    return;
  }
  const bool sends = c.kind == CollKind::kBiBw || initiator;
  const bool receives = c.kind == CollKind::kBiBw || !initiator;
  for (int w = 0; w < c.window; ++w) {
    if (sends) COLLTUNE_NCCL_CHECK(ncclSend(send, c.count, type, peer, gpu.comm, gpu.stream));
    if (receives) COLLTUNE_NCCL_CHECK(ncclRecv(recv, c.count, type, peer, gpu.comm, gpu.stream));
  }
}

void NcclCommunicator::fill(const Collective& c, Buffers& buffers, const Pattern& p) {
  auto& device = static_cast<DeviceBuffers&>(buffers);
  const int n = impl_->nranks;
  const BufferCounts counts = buffer_counts(c, n);
  for (std::size_t g = 0; g < impl_->gpus.size(); ++g) {
    const Gpu& gpu = impl_->gpus[g];
    char* const send = device.send(g, 0);
    char* const recv = device.recv(g, 0);
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    COLLTUNE_CUDA_CHECK(cudaMemsetAsync(recv, poison_byte(c.dtype),
                                        counts.recv * element_bytes(c.dtype), gpu.stream));
    for (const Block& b : input_blocks(c, n, gpu.rank)) {
      device_fill(c.dtype, element_at(b.in_recv ? recv : send, b.offset, c.dtype), b.count,
                  p.params(), b.source_rank, b.first_index, gpu.stream);
    }
  }
  for (const Gpu& gpu : impl_->gpus) COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
  device.next = 0;
}

std::uint64_t NcclCommunicator::check(const Collective& c, Buffers& buffers, const Pattern& p,
                                      bool corrupt_one) {
  auto& device = static_cast<DeviceBuffers&>(buffers);
  const int n = impl_->nranks;
  const int corrupt_rank =
      c.kind == CollKind::kReduce || c.kind == CollKind::kGather ? c.root : n - 1;
  std::uint64_t total = 0;
  for (std::size_t g = 0; g < impl_->gpus.size(); ++g) {
    const Gpu& gpu = impl_->gpus[g];
    char* const recv = device.recv(g, 0);
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    // In place, NCCL's reduce_scatter leaves each rank's block where it was in the input.
    char* out = c.kind == CollKind::kReduceScatter && c.in_place
                    ? element_at(recv, gpu.rank * c.count, c.dtype)
                    : recv;
    const auto at = first_checked_element(c, n, gpu.rank);
    if (corrupt_one && gpu.rank == corrupt_rank && at) {
      flip_device_byte(element_at(out, *at, c.dtype), gpu.stream);
    }
    COLLTUNE_CUDA_CHECK(cudaMemsetAsync(gpu.wrong, 0, sizeof(unsigned long long), gpu.stream));
    for (const Block& b : expected_blocks(c, n, gpu.rank)) {
      device_count_wrong(c.dtype, element_at(out, b.offset, c.dtype), b.count, p.params(),
                         b.source_rank, b.first_index, gpu.wrong, gpu.stream);
    }
    unsigned long long wrong = 0;
    COLLTUNE_CUDA_CHECK(
        cudaMemcpyAsync(&wrong, gpu.wrong, sizeof(wrong), cudaMemcpyDeviceToHost, gpu.stream));
    COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
    total += wrong;
  }
  return total;
}

}  // namespace colltune
