"""Builds tests/mpi/mpich_premise.cpp with Debian's MPICH (its own mpicxx) and runs it with MPICH's
mpiexec at 4 ranks: an allreduce algorithm written through MPI_T changes the next call on the
same communicator, back and forth (what colltune's --interleave of MPIR_CVAR_ algorithm variables
rests on). Skipped (77) without MPICH's mpicxx and mpiexec."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish, skip  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True, help="tests/mpi/mpich_premise.cpp")
args = parser.parse_args()
hydra = shutil.which("mpiexec.mpich")
compiler = shutil.which("mpicxx.mpich")
if hydra is None or compiler is None:
    skip("mpich_premise", "no MPICH mpicxx and mpiexec here (apt install mpich libmpich-dev)")
work = tempfile.mkdtemp(prefix="colltune-mpich-premise-")
premise = os.path.join(work, "mpich_premise")
proc = subprocess.run([compiler, "-O2", "-std=c++17", "-o", premise, args.source],
                      capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"mpicxx.mpich: {proc.stderr[-600:]}")
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
env["MPIR_CVAR_DEVICE_COLLECTIVES"] = "none"
proc = subprocess.run([hydra, "-n", "4", premise], env=env, capture_output=True, text=True,
                      timeout=120)
print(proc.stdout, end="")
check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stdout[-400:]} {proc.stderr[-400:]}")
check(proc.stdout.count("as worked out") == 4, "four fingerprints as worked out")
shutil.rmtree(work, ignore_errors=True)
finish("mpich_premise")
