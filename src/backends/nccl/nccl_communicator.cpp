#include "backends/nccl/nccl_communicator.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string_view>
#include <thread>

#include "backends/nccl/event_timer.hpp"
#include "backends/nccl/nccl_config.hpp"
#include "backends/nccl/nccl_state.hpp"
#include "backends/nccl/nccl_types.hpp"
#include "core/env_switch.hpp"
#include "core/errors.hpp"
#include "core/nccl_version.hpp"
#include "core/validation.hpp"
#include "knobs/knob_scope.hpp"

namespace colltune {

NcclCommunicator::NcclCommunicator(MpiWorld& world, const BackendOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->world = &world;
  impl_->options = options;
  // Every rank must agree before any goes on, or the others would wait in the init forever.
  // An NCCL below the floor is said once, here, not as a symbol lookup error at the first probe.
  int version = 0;
  ncclGetVersion(&version);
  auto refusal = nccl_below_floor(version);
  if (!refusal) refusal = nccl_env_switch_error(options.in_process_knobs);
  if (world.sum_over_ranks(refusal ? 1 : 0) > 0) {
    throw ConfigError(refusal.value_or(
        "another rank cannot run NCCL as asked (an older libnccl.so there, or knobs it cannot "
        "switch: its line says why)"));
  }
  const std::vector<int> ordinals = choose_devices(world, options, "--backend nccl");
  require_free_memory(world, ordinals, options.in_process_knobs.size());
  const int per_process = static_cast<int>(ordinals.size());
  // --split host: every host's ranks make a communicator of their own, all measuring at once,
  // each from an id its host's first process makes; without it, one communicator of all.
  std::optional<HostGroups> groups;
  if (options.split_by_host) groups = host_groups(world);
  const int processes =
      groups ? groups->ranks_per_host[static_cast<std::size_t>(groups->host)] : world.size();
  const int process_index = groups ? groups->rank_in_host : world.rank();
  impl_->nranks = processes * per_process;
  std::map<std::string, int> per_host;
  for (const std::string& host : world.all_gather(world.host())) per_host[host] += per_process;
  for (const auto& [host, gpus] : per_host)
    impl_->gpus_per_node = std::max(impl_->gpus_per_node, gpus);
  for (int i = 0; i < per_process; ++i) {
    Gpu gpu;
    gpu.ordinal = ordinals[static_cast<std::size_t>(i)];
    gpu.rank = process_index * per_process + i;
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    COLLTUNE_CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    COLLTUNE_CUDA_CHECK(
        cudaMalloc(reinterpret_cast<void**>(&gpu.wrong), sizeof(unsigned long long)));
    gpu.info = device_info(gpu.ordinal, &gpu.compute_major);
    impl_->gpus.push_back(std::move(gpu));
  }

  ncclUniqueId id{};
  if (groups) {
    // One all-gather hands every host its id: no host waits on another's communicator.
    std::string mine;
    if (groups->rank_in_host == 0) {
      COLLTUNE_NCCL_CHECK(ncclGetUniqueId(&id));
      mine.assign(reinterpret_cast<const char*>(&id), sizeof(id));
    }
    const std::vector<std::string> ids = world.all_gather(mine);
    const std::string& ours = ids[static_cast<std::size_t>(
        groups->first_rank_of_host[static_cast<std::size_t>(groups->host)])];
    std::copy(ours.begin(), ours.end(), reinterpret_cast<char*>(&id));
    impl_->split = fmt::format("by host: {} communicators of {} ranks, measuring at once",
                               groups->ranks_per_host.size(), impl_->nranks);
  } else {
    if (world.rank() == 0) COLLTUNE_NCCL_CHECK(ncclGetUniqueId(&id));
    world.broadcast_bytes(&id, sizeof(id));
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  if (options.nccl_blocking >= 0) config.blocking = options.nccl_blocking;
  if (options.cga_cluster_size >= 0) config.cgaClusterSize = options.cga_cluster_size;
  if (options.min_ctas >= 0) config.minCTAs = options.min_ctas;
  if (options.max_ctas >= 0) config.maxCTAs = options.max_ctas;
  // NCCL compares min with max before it fills in defaults (init.cc ~1865), and an unset max is
  // INT_MIN there: a lone --min-ctas needs max at NCCL's own default, MAXCHANNELS.
  if (options.min_ctas >= 0 && options.max_ctas < 0) config.maxCTAs = 64;
  if (!options.net_name.empty()) config.netName = impl_->options.net_name.c_str();
  // --interleave: NCCL reads NCCL_ALGO / NCCL_PROTO while it initialises a communicator, so
  // they are set only until this one is ready (end_group waits out a non-blocking init). The
  // earlier communicators' NCCL threads are idle meanwhile (no op in flight), so nothing else
  // reads the environment while setenv changes it.
  const ScopedEnvironment knobs(options.in_process_knobs);
  // One thread initialising several ranks must group the calls, or the first waits forever.
  COLLTUNE_NCCL_CHECK(ncclGroupStart());
  for (Gpu& gpu : impl_->gpus) {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    COLLTUNE_NCCL_CHECK(ncclCommInitRankConfig(&gpu.comm, impl_->nranks, id, gpu.rank, &config));
  }
  impl_->end_group();  // with blocking = 0, initialisation goes on in the background
}

NcclCommunicator::~NcclCommunicator() {
  // While an exception unwinds, peers may be inside a collective: abort, never wait.
  const bool unwinding = std::uncaught_exceptions() > 0;
  // Buffers that outlive the communicator keep their memory but lose their graphs, which hold it.
  for (DeviceBuffers* buffers : impl_->live_buffers) {
    buffers->destroy_graphs();
    buffers->registry = nullptr;
  }
  for (Gpu& gpu : impl_->gpus) {
    cudaSetDevice(gpu.ordinal);
    if (gpu.comm != nullptr) unwinding ? ncclCommAbort(gpu.comm) : ncclCommDestroy(gpu.comm);
    if (gpu.wrong != nullptr) cudaFree(gpu.wrong);
    if (gpu.stream != nullptr) cudaStreamDestroy(gpu.stream);
  }
  for (std::size_t g = 0; g < impl_->probe_scratch.size(); ++g) {
    cudaSetDevice(impl_->gpus[g].ordinal);
    cudaFree(impl_->probe_scratch[g]);
  }
}

void NcclCommunicator::Impl::abort_all() {
  for (DeviceBuffers* buffers : live_buffers) buffers->destroy_graphs();
  for (Gpu& gpu : gpus) {
    if (gpu.comm != nullptr) ncclCommAbort(gpu.comm);
    gpu.comm = nullptr;
  }
}

int NcclCommunicator::nranks() const { return impl_->nranks; }

std::map<std::string, std::string> NcclCommunicator::library_versions() const {
  int nccl = 0, runtime = 0, driver = 0;
  ncclGetVersion(&nccl);
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::string gpus;
  for (const Gpu& gpu : impl_->gpus) {
    gpus += fmt::format("{}{} (bus {})", gpus.empty() ? "" : "; ", gpu.info.model, gpu.info.bus_id);
  }
  std::map<std::string, std::string> versions{
      {"nccl", nccl_version_text(nccl)},
      {"cuda_runtime", fmt::format("{}.{}", runtime / 1000, (runtime % 1000) / 10)},
      {"cuda_driver", fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10)},
      {"gpu", gpus}};
  if (MpiWorld::active()) versions["mpi"] = MpiWorld::library_version();
  return versions;
}

std::vector<DeviceInfo> NcclCommunicator::devices() const {
  std::vector<DeviceInfo> out;
  for (const Gpu& gpu : impl_->gpus) out.push_back(gpu.info);
  return out;
}

namespace {

// What colltune's tuner plugin saw at the newest communicator init in this process, where NCCL
// loaded it: its colltune_tuner_last_init JSON (rows for this communicator, and the node count
// NCCL handed it); a sentence where NCCL_TUNER_PLUGIN is set but no colltune plugin is in the
// process; nullopt where NCCL_TUNER_PLUGIN is unset. verify reads it from the records.
std::optional<std::string> tuner_plugin_seen() {
  const char* plugin = std::getenv("NCCL_TUNER_PLUGIN");
  if (plugin == nullptr || *plugin == '\0') return std::nullopt;
  // NCCL opens the value itself, else "libnccl-tuner-<value>.so" (src/plugin/tuner.cc).
  for (const std::string& name :
       {std::string(plugin), "libnccl-tuner-" + std::string(plugin) + ".so"}) {
    void* lib = dlopen(name.c_str(), RTLD_NOLOAD | RTLD_LAZY);  // only if NCCL loaded it
    if (lib == nullptr) continue;
    using LastInit = std::size_t (*)(char*, std::size_t);
    const auto last = reinterpret_cast<LastInit>(dlsym(lib, "colltune_tuner_last_init"));
    std::string text;
    if (last != nullptr) {
      text.resize(last(nullptr, 0));
      last(text.data(), text.size() + 1);
    }
    dlclose(lib);
    if (last == nullptr) return fmt::format("{} is loaded, but it is not colltune's", name);
    return text.empty() ? "loaded, but NCCL never initialised it" : text;
  }
  return fmt::format("not loaded: NCCL_TUNER_PLUGIN={} names no library in this process", plugin);
}

}  // namespace

std::map<std::string, std::string> NcclCommunicator::settings() const {
  const BackendOptions& o = impl_->options;
  // What NCCL ran with: its environment overrides the ncclConfig_t fields colltune passed.
  const NcclEffectiveConfig config =
      effective_nccl_config(o, [](const char* name) { return std::getenv(name); });
  auto out = config.settings;
  out.insert({{"graph", o.graph ? "true" : "false"},
              {"agg_iters", std::to_string(o.aggregate)},
              {"device", o.device >= 0 ? std::to_string(o.device) : "local rank x gpus"},
              {"memory", "device"},
              {"allocator", o.nccl_mem_alloc ? "ncclMemAlloc" : "cudaMalloc"}});
  if (auto plugin = tuner_plugin_seen()) out["tuner_plugin"] = *plugin;
  if (!impl_->split.empty()) out["split"] = impl_->split;
  if (!config.from_environment.empty())
    out["nccl_config_from_environment"] =
        fmt::format("{}", fmt::join(config.from_environment, "; "));
  return out;
}

std::optional<std::string> NcclCommunicator::unsupported(const Collective& c) const {
  const int n = impl_->nranks;
  if (!nccl_type(c.dtype)) return fmt::format("this NCCL build has no {} type", name(c.dtype));
  if (c.dtype == DType::kFp8E4M3 || c.dtype == DType::kFp8E5M2) {
    int version = 0;
    ncclGetVersion(&version);
    if (version < NCCL_VERSION(2, 24, 0)) return "fp8 needs NCCL 2.24 or newer at run time";
    // NCCL builds fp8 reduction kernels for sm_90 and newer only; moving fp8 bytes needs none.
    for (const Gpu& gpu : impl_->gpus) {
      if (is_reduction(c.kind) && gpu.compute_major < 9) {
        return "fp8 reductions need a GPU of compute capability 9.0 or newer";
      }
    }
  }
  if (c.kind == CollKind::kPingpong && impl_->options.aggregate > 1) {
    return "a ping-pong's reply waits for its request: it cannot be grouped (-m)";
  }
  if (is_point_to_point(c.kind)) {
    if (n % 2 != 0) return "point-to-point needs an even number of ranks (pairs r, r+n/2)";
    if (c.in_place) return "point-to-point has no in-place form";
  }
  if (c.kind == CollKind::kBarrier) return "NCCL has no barrier (nor has nccl-tests)";
  if (auto reason = layout_unsupported(c)) return reason;
  if (c.in_place && (c.kind == CollKind::kAlltoall || c.kind == CollKind::kSendrecv)) {
    return "NCCL send/recv cannot overlap their buffers (no in-place form)";
  }
  if (const std::string algo = impl_->knob_value("NCCL_ALGO"); !algo.empty()) {
    const NcclShape shape{impl_->gpus_per_node, impl_->knob_value("NCCL_PROTO"),
                          impl_->knob_value("NCCL_PAT_ENABLE"), impl_->can_probe()};
    return nccl_algo_unusable(algo, name(c.kind), name(c.dtype),
                              is_reduction(c.kind) ? name(c.op) : std::string_view(), shape);
  }
  return std::nullopt;
}

std::string NcclCommunicator::Impl::knob_value(const char* knob) const {
  const auto& knobs = options.in_process_knobs;
  if (const auto it = knobs.find(knob); it != knobs.end() && it->second != "default")
    return it->second;
  const char* env = std::getenv(knob);
  return env != nullptr ? env : "";
}

bool NcclCommunicator::Impl::can_probe() const {
  const bool blocking =
      effective_nccl_config(options, [](const char* name) { return std::getenv(name); }).blocking;
  const char* shared_registration = std::getenv("NCCL_SINGLE_PROC_MEM_REG_ENABLE");
  return blocking && (gpus.size() == 1 || shared_registration == nullptr ||
                      std::string_view(shared_registration) == "0");
}

void NcclCommunicator::Impl::issue(const Collective& c, DeviceBuffers& buffers, int n,
                                   std::size_t first) {
  const std::size_t sets = buffers.sets;
  // A ping-pong is two groups: the reply may only leave once the request has arrived.
  const int phases = c.kind == CollKind::kPingpong ? 2 : 1;
  // -m: ops per outer group. Only then an outer group: nested groups merge, and a ping-pong's two
  // phases merged into one group would run request and reply at once.
  const int aggregate = std::max(options.aggregate, 1);
  for (int i = 0; i < n; ++i) {
    const bool opens = aggregate > 1 && i % aggregate == 0;
    const bool closes = aggregate > 1 && (i % aggregate == aggregate - 1 || i == n - 1);
    if (opens) COLLTUNE_NCCL_CHECK(ncclGroupStart());
    for (int phase = 0; phase < phases; ++phase) {
      enqueue_all(c, buffers, (first + static_cast<std::size_t>(i)) % sets, phase);
    }
    if (closes) end_group();
  }
}

void NcclCommunicator::Impl::capture(const Collective& c, DeviceBuffers& buffers, int n,
                                     std::size_t first) {
  for (const Gpu& gpu : gpus) {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpu.ordinal));
    COLLTUNE_CUDA_CHECK(cudaStreamBeginCapture(gpu.stream, cudaStreamCaptureModeThreadLocal));
  }
  issue(c, buffers, n, first);
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(gpus[g].ordinal));
    cudaGraph_t graph = nullptr;
    COLLTUNE_CUDA_CHECK(cudaStreamEndCapture(gpus[g].stream, &graph));
    cudaGraphExec_t exec = nullptr;
    COLLTUNE_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaGraphDestroy(graph);
    // Uploaded now, or the first timed cudaGraphLaunch would pay for it.
    COLLTUNE_CUDA_CHECK(cudaGraphUpload(exec, gpus[g].stream));
    buffers.gpus[g].graphs[{n, first}] = exec;
  }
}

void NcclCommunicator::prepare(const Collective& c, Buffers& buffers, int n, int batches) {
  if (!impl_->options.graph) return;
  auto& device = static_cast<DeviceBuffers&>(buffers);
  const std::size_t sets = device.sets;
  std::size_t first = device.next;
  for (int b = 0; b < batches; ++b) {
    if (device.gpus.front().graphs.count({n, first}) != 0) break;  // the rotation came round
    impl_->capture(c, device, n, first);
    first = (first + static_cast<std::size_t>(n)) % sets;
  }
}

void NcclCommunicator::launch(const Collective& c, Buffers& buffers, int n) {
  auto& device = static_cast<DeviceBuffers&>(buffers);
  const std::size_t first = device.next;
  device.next = (first + static_cast<std::size_t>(n)) % device.sets;
  auto& graphs = device.gpus.front().graphs;
  if (graphs.find({n, first}) == graphs.end()) {
    impl_->issue(c, device, n, first);  // no -G, or not prepared (warm-up): eager
    return;
  }
  for (std::size_t g = 0; g < impl_->gpus.size(); ++g) {
    COLLTUNE_CUDA_CHECK(cudaSetDevice(impl_->gpus[g].ordinal));
    COLLTUNE_CUDA_CHECK(
        cudaGraphLaunch(device.gpus[g].graphs.at({n, first}), impl_->gpus[g].stream));
  }
}

void NcclCommunicator::synchronize(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const Gpu& gpu : impl_->gpus) {
    while (true) {
      const cudaError_t state = cudaStreamQuery(gpu.stream);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) {
        impl_->abort_all();
        throw CudaError(fmt::format("GPU {} ({}): cudaStreamQuery failed: {}", gpu.ordinal,
                                    gpu.info.bus_id, cudaGetErrorString(state)));
      }
      for (const Gpu& any : impl_->gpus) {
        ncclResult_t async = ncclSuccess;
        ncclCommGetAsyncError(any.comm, &async);
        if (async != ncclSuccess && async != ncclInProgress) {
          const std::string last = ncclGetLastError(any.comm);
          impl_->abort_all();
          throw NcclError(fmt::format("NCCL asynchronous error on GPU {} ({}): {} ({})",
                                      any.ordinal, any.info.bus_id, ncclGetErrorString(async),
                                      last));
        }
      }
      if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) {
        impl_->abort_all();
        throw TimeoutError(
            fmt::format("GPU {} ({}) did not finish within {} ms (--timeout); communicator aborted",
                        gpu.ordinal, gpu.info.bus_id, timeout.count()));
      }
      std::this_thread::yield();
    }
  }
}

std::unique_ptr<Timer> NcclCommunicator::timer() {
  return std::make_unique<EventTimer>(impl_->gpus);
}

}  // namespace colltune
