#include "backends/nccl/device_memory.hpp"

#include "backends/nccl/device_validation.hpp"
#include "backends/nccl/nccl_state.hpp"
#include "core/validation.hpp"

namespace colltune {
namespace {

class CudaDeviceMemory : public DeviceMemory {
 public:
  explicit CudaDeviceMemory(int ordinal) : ordinal_(ordinal), info_(device_info(ordinal)) {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
    COLLTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    COLLTUNE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&wrong_), sizeof(*wrong_)));
  }
  ~CudaDeviceMemory() override {
    cudaSetDevice(ordinal_);
    cudaFree(wrong_);
    cudaStreamDestroy(stream_);
  }

  DeviceInfo device() const override { return info_; }

  void* allocate(std::size_t bytes) override {
    void* memory = nullptr;
    COLLTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
    COLLTUNE_CUDA_CHECK(cudaMalloc(&memory, bytes == 0 ? 1 : bytes));
    COLLTUNE_CUDA_CHECK(cudaMemset(memory, 0, bytes));  // pages backed before any timing
    return memory;
  }
  void release(void* memory) noexcept override {
    cudaSetDevice(ordinal_);
    cudaFree(memory);
  }

  void fill(const Collective& c, int nranks, int rank, const Pattern& p, void* send,
            void* recv) override {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
    const BufferCounts counts = buffer_counts(c, nranks);
    // The dtype's poison, as on the host: an output the collective never wrote is wrong.
    COLLTUNE_CUDA_CHECK(
        cudaMemsetAsync(recv, poison_byte(c.dtype), counts.recv * element_bytes(c.dtype), stream_));
    for (const Block& b : input_blocks(c, nranks, rank)) {
      device_fill(c.dtype, element_at(b.in_recv ? recv : send, b.offset, c.dtype), b.count,
                  p.params(), b.source_rank, b.first_index, stream_);
    }
    // MPI reads the buffers from its own streams: the fill must be done when this returns.
    COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::uint64_t count_wrong(const Collective& c, int nranks, int rank, const Pattern& p,
                            const void* out) override {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
    COLLTUNE_CUDA_CHECK(cudaMemsetAsync(wrong_, 0, sizeof(*wrong_), stream_));
    for (const Block& b : expected_blocks(c, nranks, rank)) {
      device_count_wrong(c.dtype, element_at(const_cast<void*>(out), b.offset, c.dtype), b.count,
                         p.params(), b.source_rank, b.first_index, wrong_, stream_);
    }
    unsigned long long wrong = 0;
    COLLTUNE_CUDA_CHECK(
        cudaMemcpyAsync(&wrong, wrong_, sizeof(wrong), cudaMemcpyDeviceToHost, stream_));
    COLLTUNE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return wrong;
  }

  void flip_byte(void* at) override {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(ordinal_));
    flip_device_byte(at, stream_);
  }

 private:
  int ordinal_;
  DeviceInfo info_;
  cudaStream_t stream_ = nullptr;
  unsigned long long* wrong_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceMemory> open_device_memory(const MpiWorld& world,
                                                 const BackendOptions& options) {
  BackendOptions one = options;
  one.gpus = 1;  // the MPI backend: one rank, one GPU
  return std::make_unique<CudaDeviceMemory>(choose_devices(world, one, "--buffers device").front());
}

}  // namespace colltune
