"""Intel MPI 2021.13 reads I_MPI_ADJUST_ALLREDUCE at MPI_Init only, so colltune races it across
launches and refuses it for --interleave. Proven here with Intel's own mpicxx and mpiexec at 4
ranks (tests/mpi/impi_premise.cpp, a counting reduction): with preset 8 set at launch, writing
preset 1 to its MPI_T alias MPIR_CVAR_USE_ALLREDUCE reads back as written, yet the next allreduce,
on the same communicator and on one made after the write, shows preset 8's pattern, while a
launch with preset 1 set at init shows a different one (the oracle can tell them apart).
Skipped (77) without Intel MPI's prefix."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish, skip  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True, help="tests/mpi/impi_premise.cpp")
parser.add_argument("--prefix", required=True, help="Intel MPI's prefix (PyPI impi-rt/devel)")
args = parser.parse_args()
prefix = os.path.abspath(args.prefix)
mpiexec, mpicxx = (os.path.join(prefix, "bin", name) for name in ("mpiexec", "mpicxx"))
if not os.access(mpicxx, os.X_OK) or not os.access(mpiexec, os.X_OK):
    skip("impi_premise", f"no Intel MPI mpicxx and mpiexec at {prefix} "
                         "(scripts/setup.sh --with-test-tools installs them)")
env = {k: v for k, v in os.environ.items()
       if not k.startswith(("OMPI_", "PMIX_", "PMI_", "PRTE_", "I_MPI_", "FI_", "MPIR_CVAR_"))}
env.update(I_MPI_ROOT=prefix, I_MPI_CC="gcc", I_MPI_CXX="g++",
           FI_PROVIDER_PATH=os.path.join(prefix, "lib", "libfabric", "prov"),
           LD_LIBRARY_PATH=os.pathsep.join([os.path.join(prefix, "lib"),
                                            os.path.join(prefix, "lib", "libfabric")]),
           PATH=os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", ""))
work = tempfile.mkdtemp(prefix="colltune-impi-premise-")
binary = os.path.join(work, "impi_premise")
proc = subprocess.run([mpicxx, "-O2", "-std=c++17", "-I", os.path.dirname(args.source), "-o",
                       binary, args.source], env=env, capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"Intel's mpicxx: {proc.stderr[-600:]}")


def launch(preset_at_init):
    """The program's four lines as a dict, with I_MPI_ADJUST_ALLREDUCE set at MPI_Init."""
    proc = subprocess.run([mpiexec, "-n", "4", binary, "64", "1"],
                          env=dict(env, I_MPI_ADJUST_ALLREDUCE=preset_at_init),
                          capture_output=True, text=True, timeout=120)
    print(proc.stdout, end="")
    check(proc.returncode == 0, f"preset {preset_at_init} at init: exit {proc.returncode}: "
          f"{proc.stdout[-300:]} {proc.stderr[-300:]}")
    return dict(line.split(":", 1) for line in proc.stdout.splitlines() if ":" in line)


at_init_8 = launch("8")
at_init_1 = launch("1")
check(at_init_8.get("before") and at_init_1.get("before") and
      at_init_8["before"] != at_init_1["before"],
      f"presets 1 and 8 must be told apart at init: {at_init_8} {at_init_1}")
check(at_init_8.get("read back", "").strip() == "1", f"the write reads back: {at_init_8}")
check(at_init_8.get("after") == at_init_8["before"] and
      at_init_8.get("new communicator") == at_init_8["before"],
      f"the write switched a call (Intel would then allow --interleave): {at_init_8}")
finish("impi_premise")
