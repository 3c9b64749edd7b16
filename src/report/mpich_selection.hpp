#pragma once
// MPICH's collective selection file (loaded by MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE at
// MPI_Init) from a results store. MPICH reads such a file instead of its whole built-in one, so
// the file is MPICH's own built-in MPIR-level selection, taken from the library at hand, with
// colltune's measured choices put first for the communicator sizes and message sizes measured;
// every other case keeps MPICH's own choice. Layout as MPICH's maint/tuning/coll/mpir/*.json.

#include <string>
#include <string_view>
#include <vector>

#include "report/tuned_read.hpp"
#include "store/results.hpp"

namespace colltune {

// What a file is written against: the library's built-in MPIR-level selection JSON (the one
// MPICH compiles in from maint/tuning/coll/mpir/generic.json) and the algorithm names its
// parser knows (MPIR_Allreduce_intra_smp ...), as NUL-terminated strings in the library.
struct MpichLibrary {
  std::string path, version;  // version: "4.0.2", from MPI_Get_library_version
  std::string builtin_selection;
  std::string bytes;  // the whole file, for name lookups
  bool knows(std::string_view algorithm) const;
};

// Reads `path` (libmpich.so, libmpi.so of an MPICH). Throws ConfigError when it holds no MPIR
// built-in selection (not an MPICH, or one built without the JSON selection).
MpichLibrary read_mpich_library(const std::string& path, const std::string& version);

// The file, as JSON text (MPICH reads no comments: what a reader should know goes to `notes`).
// Throws ConfigError when no point sets an MPICH algorithm variable of a collective the file can
// carry to a value that won, or when the store ran another MPI than `lib`.
std::string emit_mpich_selection(const Dataset& d, const MpichLibrary& lib,
                                 std::vector<std::string>& notes);

// colltune's rules in an emitted file (`text`), one row per forced algorithm and size range, for
// verify; empty when the file holds none of them. A rule MPICH would never reach, walking the
// file as it does (the first key of a level that holds wins), also goes to `unreachable`, with
// the key that wins instead. Throws ConfigError for a file that is not JSON or not a selection
// file.
std::vector<VerifiedRow> mpich_selection_rows(const std::string& path, const std::string& text,
                                              std::vector<std::string>& unreachable);

}  // namespace colltune
