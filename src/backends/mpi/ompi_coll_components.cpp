#include "backends/mpi/ompi_coll_components.hpp"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace colltune {
#ifdef OPEN_MPI
namespace {

// mca_coll_base_comm_coll_t's blocking functions in declaration order (the same in 4.1 and 5.0).
constexpr std::array<const char*, 17> kCollectives{"allgather",      "allgatherv",
                                                   "allreduce",      "alltoall",
                                                   "alltoallv",      "alltoallw",
                                                   "barrier",        "bcast",
                                                   "exscan",         "gather",
                                                   "gatherv",        "reduce",
                                                   "reduce_scatter", "reduce_scatter_block",
                                                   "scan",           "scatter",
                                                   "scatterv"};

// Reads `bytes` at `address` of this process, or nothing where it is not mapped.
bool read_own(const void* address, void* out, std::size_t bytes) {
  if (address == nullptr || reinterpret_cast<std::uintptr_t>(address) % alignof(void*) != 0)
    return false;
  iovec local{out, bytes};
  iovec remote{const_cast<void*>(address), bytes};
  return ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(bytes);
}

std::optional<std::string_view> symbol_of(const void* address) {
  Dl_info info{};
  if (address == nullptr || ::dladdr(address, &info) == 0 || info.dli_sname == nullptr)
    return std::nullopt;
  return std::string_view(info.dli_sname);
}

// "mca_coll_tuned_module_t_class" -> "tuned"; "ompi_coll_libnbc_module_t_class" -> "libnbc".
std::optional<std::string> component_of(const void* module) {
  // An opal object starts with its class pointer; debug builds put a magic number first.
  std::array<const void*, 2> head{};
  if (!read_own(module, head.data(), sizeof(head))) return std::nullopt;
  for (const void* word : head) {
    const auto name = symbol_of(word);
    constexpr std::string_view kSuffix = "_module_t_class";
    if (!name || !name->ends_with(kSuffix)) continue;
    std::string_view stem = name->substr(0, name->size() - kSuffix.size());
    for (std::string_view prefix : {"mca_coll_", "ompi_coll_"}) {
      if (stem.starts_with(prefix)) return std::string(stem.substr(prefix.size()));
    }
    return std::string(stem);
  }
  return std::nullopt;
}

}  // namespace
#endif

std::map<std::string, std::string> ompi_coll_components(MPI_Comm comm) {
  std::map<std::string, std::string> out;
#ifdef OPEN_MPI
  // Open MPI's handle is the communicator itself; MPI_COMM_WORLD's is padded to 512 bytes.
  const auto* handle = reinterpret_cast<const void* const*>(comm);
  for (std::size_t slot = 0; slot < 512 / sizeof(void*); ++slot) {
    const void* table = nullptr;
    if (!read_own(handle + slot, &table, sizeof(table))) break;
    std::array<const void*, 2 * kCollectives.size()> pairs{};
    if (!read_own(table, pairs.data(), sizeof(pairs))) continue;
    bool fits = true;
    for (std::size_t k = 0; k < 3 && fits; ++k)
      fits = symbol_of(pairs[2 * k]) && component_of(pairs[2 * k + 1]);
    if (!fits) continue;
    for (std::size_t k = 0; k < kCollectives.size(); ++k) {
      if (pairs[2 * k] == nullptr) continue;
      if (const auto component = component_of(pairs[2 * k + 1])) out[kCollectives[k]] = *component;
    }
    break;
  }
#else
  (void)comm;
#endif
  return out;
}

}  // namespace colltune
