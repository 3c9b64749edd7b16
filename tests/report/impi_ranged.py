"""Intel MPI's ranged I_MPI_ADJUST_ line, for real: `tune --emit env` from a fixed store at 4 ranks
(preset 8 wins at 1 KiB, preset 2 from 1 MiB, preset 2 the better over all sizes) writes
I_MPI_ADJUST_ALLREDUCE='8:0-65535;2'. Intel MPI itself reads the line as it is: a counting
reduction (tests/mpi/mpich_fingerprint.cpp, built with Intel's mpicxx, 4 ranks) shows preset 8's
pattern at 512 B and preset 2's at 64 KiB and 2 MiB, each pattern as Intel shows it with that
preset forced alone. `verify` then measures the line against the defaults through Intel's
mpiexec. Skipped (77) without colltune-impi or Intel MPI's prefix."""
import argparse
import os
import shutil
import subprocess

import report_harness as h
from report_harness import check

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True, help="colltune-impi")
parser.add_argument("--prefix", required=True, help="Intel MPI's prefix (PyPI impi-rt/devel)")
parser.add_argument("--fingerprint", required=True, help="tests/mpi/mpich_fingerprint.cpp")
args = parser.parse_args()
args.colltune, args.prefix = os.path.abspath(args.colltune), os.path.abspath(args.prefix)
args.fingerprint = os.path.abspath(args.fingerprint)
mpiexec = os.path.join(args.prefix, "bin", "mpiexec")
mpicxx = os.path.join(args.prefix, "bin", "mpicxx")
if not os.access(args.colltune, os.X_OK) or not os.access(mpicxx, os.X_OK):
    h.skip("impi_ranged", f"no colltune-impi at {args.colltune} or no Intel MPI mpicxx at "
                          f"{mpicxx} (scripts/setup.sh --with-test-tools builds them)")

root = h.fixtures()
env = {k: v for k, v in os.environ.items()
       if not k.startswith(("OMPI_", "PMIX_", "PMI_", "PRTE_", "I_MPI_", "FI_", "MPIR_CVAR_"))}
env.update(I_MPI_ROOT=args.prefix, I_MPI_CC="gcc", I_MPI_CXX="g++",
           FI_PROVIDER_PATH=os.path.join(args.prefix, "lib", "libfabric", "prov"),
           LD_LIBRARY_PATH=os.pathsep.join([os.path.join(args.prefix, "lib"),
                                            os.path.join(args.prefix, "lib", "libfabric")]),
           PATH=os.path.join(args.prefix, "bin") + os.pathsep + env.get("PATH", ""))


def run(argv, timeout=300, **extra):
    return subprocess.run(argv, env=dict(env, **extra), capture_output=True, text=True,
                          timeout=timeout, cwd=root)


proc = run([args.colltune, "tune", os.path.join(root, "impi"), "--emit", "env"])
line = [l for l in proc.stdout.splitlines() if l.startswith("export I_MPI_ADJUST_ALLREDUCE=")]
check(proc.returncode == 0 and len(line) == 1 and
      line[0].startswith("export I_MPI_ADJUST_ALLREDUCE='8:0-65535;2'"),
      f"tune --emit env: exit {proc.returncode}: {proc.stdout[-600:]} {proc.stderr[-300:]}")
check("won significantly 8 at 1024 B; 2 elsewhere" in proc.stdout,
      f"the line's comment says where 8 won: {proc.stdout[-400:]}")
tuned = os.path.join(root, "tuned.env")
open(tuned, "w").write(proc.stdout)
ranged = "8:0-65535;2"

fingerprint = os.path.join(root, "fingerprint")
proc = run([mpicxx, "-O2", "-std=c++17", "-o", fingerprint, args.fingerprint])
check(proc.returncode == 0, f"Intel's mpicxx: {proc.stderr[-400:]}")


def seen(count, adjust):
    proc = run([mpiexec, "-n", "4", fingerprint, str(count)], I_MPI_ADJUST_ALLREDUCE=adjust)
    return proc.stdout.strip() if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr[-300:]}"


# 64 doubles = 512 B (in 8's range), 8192 = 64 KiB (the first size past it), 262144 = 2 MiB.
for count, want in ((64, "8"), (8192, "2"), (262144, "2")):
    alone = {preset: seen(count, preset) for preset in ("2", "8")}
    check(alone["2"] != alone["8"] and all(v.startswith("fingerprint:") for v in alone.values()),
          f"{count} doubles: presets 2 and 8 must be told apart: {alone}")
    print(f"{count} doubles: preset 2 {alone['2']}, preset 8 {alone['8']}")
    check(seen(count, ranged) == alone[want],
          f"{count} doubles under '{ranged}': {seen(count, ranged)}, preset {want} alone: "
          f"{alone[want]}")

spec = os.path.join(root, "launch.yaml")
open(spec, "w").write("launcher: mpiexec\n")
proc = run([args.colltune, "verify", tuned, "--np", "4", "--spec", spec, "--rounds", "2",
            "--coll", "allreduce", "--results", os.path.join(root, "verify")], timeout=500)
check(proc.returncode in (0, 1, 3) and "\nallreduce " in "\n" + proc.stdout and
      "every launch with" not in proc.stderr and ranged in proc.stdout + proc.stderr,
      f"verify through Intel's mpiexec: exit {proc.returncode}: {proc.stdout[:600]} "
      f"{proc.stderr[-500:]}")
shutil.rmtree(root, ignore_errors=True)
h.finish("impi_ranged")
