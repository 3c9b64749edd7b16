"""Builds tests/mpi/mpich_premise.cpp with Debian's MPICH (its own mpicxx), or with the MPICH at
--prefix (PyPI's MPICH 5), and runs it with that MPICH's mpiexec at 4 ranks: an allreduce
algorithm written through MPI_T changes the next call on the same communicator, back and forth
(what colltune's --interleave of MPIR_CVAR_ algorithm variables rests on). Skipped (77) without
MPICH's mpicxx and mpiexec."""
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
parser.add_argument("--prefix", help="an MPICH install prefix (default: Debian's MPICH)")
args = parser.parse_args()
if args.prefix:
    found = [os.path.join(args.prefix, "bin", name) for name in ("mpiexec", "mpicxx")]
    hydra, compiler = [path if os.access(path, os.X_OK) else None for path in found]
else:
    hydra = shutil.which("mpiexec.mpich")
    compiler = shutil.which("mpicxx.mpich")
if hydra is None or compiler is None:
    skip("mpich_premise", f"no MPICH mpicxx and mpiexec {'at ' + args.prefix if args.prefix else 'here'} "
                          "(apt install mpich libmpich-dev; scripts/setup.sh --with-test-tools)")
work = tempfile.mkdtemp(prefix="colltune-mpich-premise-")
premise = os.path.join(work, "mpich_premise")
proc = subprocess.run([compiler, "-O2", "-std=c++17", "-o", premise, args.source],
                      capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"{compiler}: {proc.stderr[-600:]}")
env = {k: v for k, v in os.environ.items()
       if not k.startswith(("OMPI_", "PMIX_", "PMI_", "MPIR_CVAR_"))}
if args.prefix:  # its mpiexec's proxies are found on PATH
    env["PATH"] = os.path.join(args.prefix, "bin") + os.pathsep + env.get("PATH", "")
env["MPIR_CVAR_DEVICE_COLLECTIVES"] = "none"
proc = subprocess.run([hydra, "-n", "4", premise], env=env, capture_output=True, text=True,
                      timeout=120)
print(proc.stdout, end="")
check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stdout[-400:]} {proc.stderr[-400:]}")
check(proc.stdout.count("as worked out") == 4, "four fingerprints as worked out")
shutil.rmtree(work, ignore_errors=True)
finish("mpich_premise")
