#pragma once
// Which Open MPI coll component serves each blocking collective of a communicator, asked of the
// library itself. Open MPI 4.1 and 5.0 publish this nowhere (no info key, pvar or verbose line
// per function; 5.0's coll_base_comm_select.c logs only each component's priority), but every
// communicator holds it: a pointer to its table of (function, module) pairs, in the order of
// mca_coll_base_comm_coll_t (coll.h), each module an opal object whose class is the component's
// exported `mca_coll_<name>_module_t_class`. The pointer's place in the communicator differs by
// build (+336 in Debian's 4.1.4, +344 in PyPI's 5.0.11), so it is found, not assumed: the first
// slot whose first three pairs resolve to functions and module classes.

#include <mpi.h>

#include <map>
#include <string>

namespace colltune {

// collective ("allreduce", "bcast", ...) -> component ("tuned", "han", "sm", "basic", "libnbc",
// "ucc", "hcoll", "acoll", ...). Empty where the table cannot be found (another MPI, or a build
// it does not fit). Any rank, after MPI_Init; reads memory only through process_vm_readv, so a
// wrong guess reads nothing rather than faults.
std::map<std::string, std::string> ompi_coll_components(MPI_Comm comm);

}  // namespace colltune
