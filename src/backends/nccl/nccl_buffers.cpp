// The NCCL backend's device buffers: one reservation per launch, lent to each size in turn, and
// the captured graphs that hold them.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "backends/nccl/nccl_state.hpp"

namespace colltune {

namespace {

// cudaMalloc or ncclMemAlloc on the current device; nullptr where it failed.
char* allocate_pool(std::uint64_t bytes, bool nccl_allocated) {
  void* pool = nullptr;
  const bool ok = nccl_allocated ? ncclMemAlloc(&pool, bytes) == ncclSuccess
                                 : cudaMalloc(&pool, bytes) == cudaSuccess;
  if (ok) return static_cast<char*>(pool);
  cudaGetLastError();  // an allocation that failed leaves no sticky error to blame later calls
  return nullptr;
}

void free_pool(char* pool, bool nccl_allocated) {
  if (pool == nullptr) return;
  nccl_allocated ? static_cast<void>(ncclMemFree(pool)) : static_cast<void>(cudaFree(pool));
}

}  // namespace

ReservedPools::~ReservedPools() {
  for (std::size_t g = 0; g < pools.size(); ++g) {
    cudaSetDevice(ordinals[g]);
    free_pool(pools[g], nccl_allocated);
  }
}

void DeviceBuffers::destroy_graphs() {
  for (auto& gpu : gpus) {
    cudaSetDevice(gpu.ordinal);
    for (auto& [key, exec] : gpu.graphs) cudaGraphExecDestroy(exec);
    gpu.graphs.clear();
  }
}

DeviceBuffers::~DeviceBuffers() {
  if (registry != nullptr) registry->erase(this);
  destroy_graphs();  // before the memory they reference goes back, here or with `lent`
  if (lent != nullptr) return;
  for (auto& gpu : gpus) {
    cudaSetDevice(gpu.ordinal);
    free_pool(gpu.pool, nccl_allocated);
  }
}

void NcclCommunicator::reserve(std::uint64_t bytes) {
  impl_->reserved.reset();
  if (bytes == 0) return;
  auto reserved = std::make_shared<ReservedPools>();
  reserved->bytes = bytes;
  reserved->nccl_allocated = impl_->options.nccl_mem_alloc;
  bool failed = false;
  for (const Gpu& gpu : impl_->gpus) {
    char* pool = cudaSetDevice(gpu.ordinal) == cudaSuccess
                     ? allocate_pool(bytes, reserved->nccl_allocated)
                     : nullptr;
    if (pool == nullptr) {
      failed = true;
      break;
    }
    reserved->ordinals.push_back(gpu.ordinal);
    reserved->pools.push_back(pool);
  }
  // One choice on every rank, so that a size's buffers have the same extent everywhere, as
  // NCCL's registration of user buffers expects.
  if (impl_->world->sum_over_ranks(failed ? 1 : 0) > 0) {
    if (impl_->world->rank() == 0) {
      std::fprintf(stderr,
                   "colltune: NCCL: a rank has no room for %llu bytes (the largest size's buffers) "
                   "at once: each size allocates its own, at addresses NCCL may have seen\n",
                   static_cast<unsigned long long>(bytes));
    }
    return;
  }
  impl_->reserved = std::move(reserved);
}

std::unique_ptr<Buffers> NcclCommunicator::allocate(const Collective& c, std::size_t sets) {
  auto buffers = std::make_unique<DeviceBuffers>();
  buffers->registry = &impl_->live_buffers;
  impl_->live_buffers.insert(buffers.get());
  buffers->sets = std::max<std::size_t>(sets, 1);
  buffers->nccl_allocated = impl_->options.nccl_mem_alloc;
  buffers->layout = set_layout(c, impl_->nranks);
  const std::uint64_t bytes = buffers->sets * buffers->layout.stride_bytes;
  // Lent only while no other buffers hold it: one size at a time, as the run measures them.
  const auto& reserved = impl_->reserved;
  if (reserved != nullptr && reserved.use_count() == 1 && bytes <= reserved->bytes) {
    buffers->lent = reserved;
  }
  for (std::size_t g = 0; g < impl_->gpus.size(); ++g) {
    const Gpu& gpu = impl_->gpus[g];
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    auto& mine = buffers->gpus.emplace_back();
    mine.ordinal = gpu.ordinal;
    if (buffers->lent != nullptr) {
      mine.pool = buffers->lent->pools[g];
    } else if (impl_->options.nccl_mem_alloc) {
      // The same size on every rank, as NCCL's registration of user buffers expects.
      COLLTUNE_NCCL_CHECK(ncclMemAlloc(reinterpret_cast<void**>(&mine.pool), bytes));
    } else {
      COLLTUNE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&mine.pool), bytes));
    }
    if (c.kind == CollKind::kAlltoallv) mine.exchange = rank_exchange(c, impl_->nranks, gpu.rank);
  }
  return buffers;
}

}  // namespace colltune
