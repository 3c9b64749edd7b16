#pragma once
// Fill and check kernels: validation on the device, so checking an 8 GiB buffer costs
// milliseconds, not a copy to the host. Plain declarations; the kernels live in the .cu file.

#include <cstddef>
#include <cstdint>

#include "core/collective.hpp"
#include "core/pattern_math.hpp"

namespace colltune {

// Writes input(rank, first + i) for i < count into device memory `dst`, on `stream`
// (a cudaStream_t).
void device_fill(DType dtype, void* dst, std::size_t count, const PatternParams& p, int rank,
                 std::uint64_t first, void* stream);

// Adds to the device counter `wrong` the elements of `buf` that are not input(source, first + i),
// or reduced(first + i) when source is kReduced (element_matches: bitwise but for float avg).
void device_count_wrong(DType dtype, const void* buf, std::size_t count, const PatternParams& p,
                        int source, std::uint64_t first, unsigned long long* wrong, void* stream);

// --test-corrupt: flips the lowest bit of the device byte `at`, ordered after the work already
// on `stream` (a cudaStream_t). Throws CudaError.
void flip_device_byte(void* at, void* stream);

}  // namespace colltune
