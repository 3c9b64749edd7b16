#pragma once
// nccl-tests' JSON output (-J) read as a Dataset: one configuration, one launch per file.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/results.hpp"

namespace colltune {

// `j` is the whole parsed file. Ranks are processes (device entries) x threads x GPUs per thread;
// hosts come from the device entries; `cpu_time` (-C) files are read like `time` ones; where the
// file has per-iteration times (-I), those are the samples, else the one averaged time is.
// Throws ConfigError naming the file and field, as load_dataset does.
Dataset load_nccl_tests(const std::string& path, const nlohmann::json& j, const LoadOptions& o);

// colltune's name of the collective an nccl-tests binary measures ("all_reduce_perf" and
// "all_reduce_perf_mpi" -> "allreduce"); nullopt for another program.
std::optional<std::string> collective_of_binary(const std::string& program);

// The binaries collective_of_binary knows, for error lines.
inline constexpr const char* kNcclTestsBinaries =
    "all_reduce_perf all_gather_perf alltoall_perf broadcast_perf reduce_perf "
    "reduce_scatter_perf sendrecv_perf";

}  // namespace colltune
