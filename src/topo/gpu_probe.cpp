#include "topo/gpu_probe.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace colltune {
namespace {

// The few NVML and CUDA runtime entry points used, by their C signatures (nvml.h and
// cuda_runtime_api.h): loading them at run time keeps the GPU libraries optional.
using NvmlDevice = void*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlGetCount = int (*)(unsigned*);
using NvmlGetHandle = int (*)(unsigned, NvmlDevice*);
using NvmlGetName = int (*)(NvmlDevice, char*, unsigned);
using NvmlCommonAncestor = int (*)(NvmlDevice, NvmlDevice, int*);
using NvmlP2PStatus = int (*)(NvmlDevice, NvmlDevice, int, int*);
constexpr int kNvmlP2PCapsNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kNvmlP2PStatusOk = 0;

using CudaGetCount = int (*)(int*);
using CudaSetDevice = int (*)(int);
using CudaMalloc = int (*)(void**, std::size_t);
using CudaFree = int (*)(void*);
using CudaMemcpy = int (*)(void*, const void*, std::size_t, int);
using CudaSync = int (*)();
constexpr int kCudaMemcpyDeviceToDevice = 3;

void* open_first(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

// nvmlGpuTopologyLevel_t: INTERNAL 0, SINGLE 10, MULTIPLE 20, HOSTBRIDGE 30, NODE 40, SYSTEM 50.
std::string topology_class(int level) {
  if (level <= 10) return "PIX";
  if (level <= 20) return "PXB";
  if (level <= 30) return "PHB";
  if (level <= 40) return "NODE";
  return "SYS";
}

void* open_cudart() { return open_first({"libcudart.so", "libcudart.so.13", "libcudart.so.12"}); }

}  // namespace

GpuLinks probe_gpu_links() {
  GpuLinks links;
  void* nvml = open_first({"libnvidia-ml.so.1", "libnvidia-ml.so"});
  if (nvml == nullptr) {
    links.why = "no NVIDIA driver: libnvidia-ml.so.1 was not found";
    return links;
  }
  const auto init = reinterpret_cast<NvmlInit>(dlsym(nvml, "nvmlInit_v2"));
  const auto shutdown = reinterpret_cast<NvmlShutdown>(dlsym(nvml, "nvmlShutdown"));
  const auto count = reinterpret_cast<NvmlGetCount>(dlsym(nvml, "nvmlDeviceGetCount_v2"));
  const auto handle = reinterpret_cast<NvmlGetHandle>(dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2"));
  const auto get_name = reinterpret_cast<NvmlGetName>(dlsym(nvml, "nvmlDeviceGetName"));
  const auto ancestor =
      reinterpret_cast<NvmlCommonAncestor>(dlsym(nvml, "nvmlDeviceGetTopologyCommonAncestor"));
  const auto p2p = reinterpret_cast<NvmlP2PStatus>(dlsym(nvml, "nvmlDeviceGetP2PStatus"));
  unsigned n = 0;
  if (!init || !shutdown || !count || !handle || !get_name || !ancestor || !p2p || init() != 0 ||
      count(&n) != 0) {
    links.why = "NVML is present but did not initialise (driver not loaded?)";
    dlclose(nvml);
    return links;
  }
  std::vector<NvmlDevice> devices(n);
  for (unsigned i = 0; i < n; ++i) {
    char name[96] = "?";
    handle(i, &devices[i]);
    get_name(devices[i], name, sizeof(name));
    links.gpus.push_back(fmt::format("{}: {}", i, name));
  }
  for (unsigned i = 0; i < n; ++i) {
    std::vector<std::string> row;
    for (unsigned j = 0; j < n; ++j) {
      int status = -1, level = 50;
      if (i == j) {
        row.emplace_back("X");
      } else if (p2p(devices[i], devices[j], kNvmlP2PCapsNvlink, &status) == 0 &&
                 status == kNvmlP2PStatusOk) {
        row.emplace_back("NV");
      } else {
        ancestor(devices[i], devices[j], &level);
        row.push_back(topology_class(level));
      }
    }
    links.matrix.push_back(std::move(row));
  }
  shutdown();
  dlclose(nvml);
  links.available = n > 0;
  if (n == 0) links.why = "the NVIDIA driver sees no GPU";
  return links;
}

int visible_gpu_count() {
  void* cuda = open_cudart();
  if (cuda == nullptr) return 0;
  const auto get_count = reinterpret_cast<CudaGetCount>(dlsym(cuda, "cudaGetDeviceCount"));
  int n = 0;
  return get_count != nullptr && get_count(&n) == 0 ? n : 0;
}

std::vector<Ceiling> measure_device_ceilings(std::string& why, std::size_t bytes, int repeats) {
  std::vector<Ceiling> out;
  void* cuda = open_cudart();
  if (cuda == nullptr) {
    why =
        "no CUDA runtime: libcudart.so was not found (the CUDA toolkit or the "
        "nvidia-cuda-runtime wheel has it; a wheel-only NCCL does not)";
    return out;
  }
  const int n = visible_gpu_count();
  const auto set_device = reinterpret_cast<CudaSetDevice>(dlsym(cuda, "cudaSetDevice"));
  const auto alloc = reinterpret_cast<CudaMalloc>(dlsym(cuda, "cudaMalloc"));
  const auto release = reinterpret_cast<CudaFree>(dlsym(cuda, "cudaFree"));
  const auto copy = reinterpret_cast<CudaMemcpy>(dlsym(cuda, "cudaMemcpy"));
  const auto sync = reinterpret_cast<CudaSync>(dlsym(cuda, "cudaDeviceSynchronize"));
  if (!set_device || !alloc || !release || !copy || !sync || n == 0) {
    why = "the CUDA runtime sees no GPU";
    return out;
  }
  for (int gpu = 0; gpu < n; ++gpu) {
    void *src = nullptr, *dst = nullptr;
    // A copy that failed returns at once: timing it would make a ceiling of any height.
    const auto copied = [&] {
      return copy(dst, src, bytes, kCudaMemcpyDeviceToDevice) == 0 && sync() == 0;
    };
    bool ok = set_device(gpu) == 0 && alloc(&src, bytes) == 0 && alloc(&dst, bytes) == 0 &&
              copied();  // the first copy warms up
    std::vector<double> seconds;
    for (int i = 0; ok && i < repeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      ok = copied();
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (src != nullptr) release(src);
    if (dst != nullptr) release(dst);
    if (!ok || seconds.empty()) {
      why = fmt::format("GPU {}: a {} MiB device-to-device copy failed", gpu, bytes >> 20);
      continue;
    }
    std::sort(seconds.begin(), seconds.end());
    // A device copy reads and writes every byte; like nvbandwidth, count the bytes copied once.
    out.push_back({"device_memcpy", gpu,
                   static_cast<double>(bytes) / seconds[seconds.size() / 2] / 1e9,
                   fmt::format("cudaMemcpy device to device of {} MiB on GPU {}, median of {}",
                               bytes >> 20, gpu, repeats)});
  }
  return out;
}

}  // namespace colltune
