#include "comm/mpi_world.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <exception>

#include "core/errors.hpp"

namespace colltune {
namespace {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw MpiError(fmt::format("{} failed: {}", call, std::string(text, length)));
}

}  // namespace

MpiWorld::MpiWorld(int* argc, char*** argv, bool use_mpi, ToolInterface tool) : solo_(!use_mpi) {
  if (solo_) {
    char name[256] = "unknown";
    gethostname(name, sizeof(name) - 1);
    host_ = name;
    return;
  }
  int provided = 0;
  // Never finalized, like the first session write_mpi_t_knobs opens: Open MPI tears the variable
  // system down at the last MPI_T_finalize. A failure here shows at the first MPI_T write.
  if (tool == ToolInterface::kBeforeInit) MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  // SINGLE: only the main thread calls MPI (the watchdog ends the process without it). On Open
  // MPI 4.1, FUNNELED cost an 8 B allreduce ~0.1 us against OSU's SINGLE (issue 15).
  check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
            "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
}

MpiWorld::~MpiWorld() {
  if (!solo_ && std::uncaught_exceptions() == 0) MPI_Finalize();
}

void MpiWorld::finalize() { MPI_Finalize(); }

bool MpiWorld::active() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

void MpiWorld::barrier() const {
  if (!solo_) check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

std::vector<std::string> MpiWorld::all_gather(const std::string& mine) const {
  if (solo_) return {mine};
  const int my_length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  check_mpi(MPI_Allgather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD),
            "MPI_Allgather");
  std::vector<int> displs(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    displs[i] = total;
    total += lengths[i];
  }
  std::string joined(static_cast<std::size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(mine.data(), my_length, MPI_CHAR, joined.data(), lengths.data(),
                           displs.data(), MPI_CHAR, MPI_COMM_WORLD),
            "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out.push_back(
        joined.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lengths[i])));
  }
  return out;
}

void MpiWorld::broadcast_bytes(void* data, std::size_t bytes) const {
  if (solo_) return;
  check_mpi(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

std::uint64_t MpiWorld::sum_over_ranks(std::uint64_t mine) const {
  if (solo_) return mine;
  std::uint64_t total = 0;
  check_mpi(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
  return total;
}

void MpiWorld::max_over_ranks(std::vector<double>& values) const {
  if (solo_) return;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                          MPI_MAX, MPI_COMM_WORLD),
            "MPI_Allreduce");
}

std::vector<std::vector<double>> MpiWorld::gather_to_root(const std::vector<double>& values) const {
  if (solo_) return {values};
  const int n = static_cast<int>(values.size());
  std::vector<double> all(rank_ == 0 ? values.size() * static_cast<std::size_t>(size_) : 0);
  check_mpi(MPI_Gather(values.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD),
            "MPI_Gather");
  std::vector<std::vector<double>> out;
  for (int r = 0; rank_ == 0 && r < size_; ++r) {
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(r) * n,
                     all.begin() + static_cast<std::ptrdiff_t>(r + 1) * n);
  }
  return out;
}

void MpiWorld::reduce_over_ranks(std::vector<double>& values, RankReduction how) const {
  if (solo_) return;
  if (how == RankReduction::kRank0) {
    broadcast_bytes(values.data(), values.size() * sizeof(double));
    return;
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE,
                          how == RankReduction::kMin   ? MPI_MIN
                          : how == RankReduction::kMax ? MPI_MAX
                                                       : MPI_SUM,
                          MPI_COMM_WORLD),
            "MPI_Allreduce");
  if (how == RankReduction::kMean) {
    for (double& v : values) v /= size_;
  }
}

std::string MpiWorld::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  while (!version.empty() && (version.back() == '\n' || version.back() == '\0')) version.pop_back();
  for (char& ch : version) {
    if (ch == '\n') ch = ' ';
  }
  return version;
}

void MpiWorld::abort(int code) {
  if (!active()) std::_Exit(code);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this keeps the promise if it ever did
}

}  // namespace colltune
