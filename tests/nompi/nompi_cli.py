"""colltune-nompi, the binary without MPI built beside colltune from the same libraries: it
links no MPI library, offers only the single-process NCCL backend and says so, and refuses a
real mpirun launch of several ranks with one line. Skipped (77) where it was not built (no CUDA
toolkit or NCCL here)."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
args = parser.parse_args()
if not os.path.exists(args.colltune):
    print(f"nompi_cli: skipped, {args.colltune} was not built (needs CUDA and NCCL)")
    sys.exit(77)
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_", "SLURM_"))}
env["CUDA_VISIBLE_DEVICES"] = ""  # no GPU, whatever the machine has
out = os.path.join(tempfile.mkdtemp(prefix="colltune-nompi-"), "r.jsonl")


def run(argv, extra_env=None, timeout=60):
    proc = subprocess.run(argv, env=dict(env, **(extra_env or {})), capture_output=True, text=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr.strip().splitlines()


libs = subprocess.run(["ldd", args.colltune], capture_output=True, text=True).stdout
check("libmpi" not in libs, f"links MPI: {[l for l in libs.splitlines() if 'mpi' in l]}")
check("libnccl" in libs, "does not link NCCL")

code, stdout, _ = run([args.colltune, "--version"])
check(code == 0 and "backends: nccl; built without MPI: single-process runs only" in stdout,
      f"--version: {stdout!r}")

# The default backend is NCCL; without a GPU it stops at once, naming what it looked for, and
# suggests no MPI backend that does not exist.
code, _, lines = run([args.colltune, "run", "-g", "2", "--json", out])
check(code == 2 and len(lines) == 1 and "--backend nccl: no CUDA device" in lines[0] and
      "--backend mpi" not in lines[0], f"run -g 2 without a GPU: exit {code}, {lines}")
check(not os.path.exists(out) and not os.path.exists(out + ".partial"), "a file was written")

code, _, lines = run([args.colltune, "run", "--backend", "mpi"])
check(code == 2 and lines == ["colltune: error: --backend: 'mpi' is not built into this colltune; "
                              "allowed: nccl"], f"--backend mpi: exit {code}, {lines}")

# A real launcher starting two copies: each refuses with one line instead of running alone.
code, _, lines = run(["mpirun", "--oversubscribe", "-np", "2", args.colltune, "run", "-g", "1"],
                     {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
refusals = [l for l in lines if "built without MPI (colltune-nompi" in l]
check(code != 0 and len(refusals) >= 1 and "2 ranks were started" in refusals[0],
      f"mpirun -np 2: exit {code}, {lines}")

code, stdout, _ = run([args.colltune, "topo", "--json"])
check(code == 0 and stdout.lstrip().startswith("{"), f"topo --json: exit {code}")

finish("nompi_cli")
