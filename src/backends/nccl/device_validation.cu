#include <cuda_runtime.h>

#include <string>

#include "backends/nccl/device_validation.hpp"
#include "core/dtype_dispatch.hpp"
#include "core/errors.hpp"
#include "core/validation.hpp"

namespace colltune {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;

int blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks == 0 ? 1 : blocks) : kMaxBlocks);
}

// Clears an earlier call's non-sticky error, which cudaGetLastError would otherwise report as this
// launch's (a sticky one stays and fails the launch too).
void clear_stale_error() { (void)cudaGetLastError(); }

// A kernel that never ran leaves the counter at zero: without this a GPU the binary has no code
// for ("no kernel image") would pass every check.
void throw_if_launch_failed(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    throw CudaError(std::string(kernel) + " launch failed: " + cudaGetErrorString(err));
  }
}

template <typename T>
__global__ void fill_kernel(T* dst, std::size_t count, PatternParams p, int rank,
                            std::uint64_t first) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    dst[i] = element_from_integer<T>(pattern_input(p, rank, first + i));
  }
}

template <typename T>
__global__ void count_kernel(const T* buf, std::size_t count, PatternParams p, int source,
                             std::uint64_t first, unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (!element_matches(p, source, first + i, buf[i])) ++local;
  }
  if (local != 0) atomicAdd(wrong, local);
}

}  // namespace

void device_fill(DType dtype, void* dst, std::size_t count, const PatternParams& p, int rank,
                 std::uint64_t first, void* stream) {
  clear_stale_error();
  with_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<T><<<blocks_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<T*>(dst), count, p, rank, first);
  });
  throw_if_launch_failed("fill_kernel");
}

void device_count_wrong(DType dtype, const void* buf, std::size_t count, const PatternParams& p,
                        int source, std::uint64_t first, unsigned long long* wrong, void* stream) {
  clear_stale_error();
  with_dtype(dtype, [&](auto zero) {
    using T = decltype(zero);
    count_kernel<T><<<blocks_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const T*>(buf), count, p, source, first, wrong);
  });
  throw_if_launch_failed("count_kernel");
}

void flip_device_byte(void* at, void* stream) {
  // On the stream the op ran on: a synchronous copy goes on the legacy stream, which a
  // non-blocking stream does not wait for, so it could read the byte before the op wrote it.
  const auto s = static_cast<cudaStream_t>(stream);
  unsigned char byte = 0;
  cudaError_t err = cudaMemcpyAsync(&byte, at, 1, cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  byte ^= 1;
  if (err == cudaSuccess) err = cudaMemcpyAsync(at, &byte, 1, cudaMemcpyHostToDevice, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) throw CudaError(std::string("flipping a byte: ") + cudaGetErrorString(err));
}

}  // namespace colltune
