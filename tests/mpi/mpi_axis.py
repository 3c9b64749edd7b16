"""The `mpi` axis: one sweep whose points run under Debian's Open MPI and Debian's MPICH, each
started by its own launcher in its own dialect with the colltune built against it. The oracle is
the MPI itself: each record carries MPI_Get_library_version of the library that ran it, the
binding the rank found, and the variables it saw. The report then answers "which MPI" per size
with both in its context; `tune --emit env` names the faster MPI as a comment, never a variable.
Another dialect's launcher_args under one MPI is refused (exit 2) before any launch. Skipped (77)
without colltune-mpich4 (scripts/setup.sh --with-test-tools) or MPICH's mpiexec."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish, mpi_env, skip  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True, help="the main build's colltune (Open MPI)")
parser.add_argument("--mpich-colltune", required=True, help="a colltune built against MPICH")
args = parser.parse_args()
hydra = shutil.which("mpiexec.mpich") or shutil.which("mpiexec.hydra")
if not os.access(args.mpich_colltune, os.X_OK):
    skip("mpi_axis", f"no colltune built against MPICH at {args.mpich_colltune} "
                     "(scripts/setup.sh --with-test-tools builds it where MPICH is installed)")
if hydra is None:
    skip("mpi_axis", "no MPICH mpiexec here (apt install mpich)")
ompi = shutil.which("mpirun.openmpi") or shutil.which("mpirun")

work = tempfile.mkdtemp(prefix="colltune-mpi-axis-")
env = {k: v for k, v in mpi_env().items() if not k.startswith(("PMIX_", "PMI_"))}
spec = os.path.join(work, "s.yaml")
SPEC = f"""name: which-mpi
launcher: mpirun
repetitions: 3
mpis:
  openmpi:
    launcher: {ompi}
    colltune: {args.colltune}
    launcher_args: [--oversubscribe]
    env: {{OMPI_MCA_btl: "self,vader"}}
  mpich:
    launcher: {hydra}
    colltune: {args.mpich_colltune}
    launcher_args: []
    env: {{MPIR_CVAR_DEVICE_COLLECTIVES: none}}
baseline: {{mpi: openmpi}}
benchmark: {{collectives: allreduce, min_bytes: 8, max_bytes: 64K, step_factor: 64, iters: 5, samples: 3}}
axes:
  np: 2
  bind_to: core
  mpi: [openmpi, mpich]
"""
open(spec, "w").write(SPEC)

# The real commands: each MPI's own launcher, each in its own words, each its own colltune.
proc = subprocess.run([args.colltune, "sweep", spec, "--dry-run"], env=env, capture_output=True,
                      text=True, timeout=60)
lines = [line for line in proc.stdout.splitlines() if not line.startswith("#")]
check(proc.returncode == 0 and len(lines) == 6,
      f"--dry-run: exit {proc.returncode}, {len(lines)} commands: {proc.stderr[-400:]}")
# Each line: the variables set for the launcher, then its argv.
mpich_lines = [line for line in lines if f" {hydra} " in line]
ompi_lines = [line for line in lines if f" {ompi} " in line]
check(len(mpich_lines) == 3 and all(
    f" {hydra} -n 2 -bind-to core {args.mpich_colltune} run " in line for line in mpich_lines),
      f"MPICH's points in Hydra's words with its colltune: {mpich_lines[:1]}")
check(len(ompi_lines) == 3 and all(
    f" {ompi} -np 2 --bind-to core --oversubscribe -x OMPI_MCA_btl {args.colltune} run " in line
    for line in ompi_lines), f"Open MPI's points in its words with its colltune: {ompi_lines[:1]}")

results = os.path.join(work, "results")
proc = subprocess.run([args.colltune, "sweep", spec, "--results", results], env=env,
                      capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"sweep over two MPIs: exit {proc.returncode}: {proc.stderr[-600:]}")
seen = {}
for path in glob.glob(os.path.join(results, "*", "points", "*", "round-*.jsonl")):
    for line in open(path):
        c = json.loads(line)["context"]
        seen.setdefault(c.get("mpi_family"), set()).add(
            (json.dumps(sorted(c["environment"].items())),
             tuple(p["cpus"] for p in c["placement"])))
check(set(seen) == {"Open MPI", "MPICH"}, f"the MPIs that ran, as they name themselves: {set(seen)}")
for family, own, other in [("Open MPI", "OMPI_MCA_btl", "MPIR_CVAR_DEVICE_COLLECTIVES"),
                           ("MPICH", "MPIR_CVAR_DEVICE_COLLECTIVES", "OMPI_MCA_btl")]:
    for environment, cpus in seen.get(family, set()):
        names = dict(json.loads(environment))
        check(own in names and other not in names, f"{family} saw {sorted(names)}")
        # Bound to a core each: one CPU per rank, and not the same one.
        check(len(cpus) == 2 and all("," not in c and "-" not in c for c in cpus) and
              cpus[0] != cpus[1], f"{family} bindings: {cpus}")

store = glob.glob(os.path.join(results, "*"))[0]
proc = subprocess.run([args.colltune, "report", store], env=env, capture_output=True, text=True,
                      timeout=120)
report = open(os.path.join(store, "report.md")).read() if proc.returncode == 0 else ""
check("mpi=mpich" in report and "mpi=openmpi" in report and
      "**MPI library**: MPICH 4." in report and "; Open MPI" in report,
      f"the report names both MPIs: exit {proc.returncode}: {proc.stderr[-300:]}")
proc = subprocess.run([args.colltune, "tune", store, "--emit", "env"], env=env,
                      capture_output=True, text=True, timeout=120)
check(proc.returncode == 0 and "# mpi: " in proc.stdout and "export mpi" not in proc.stdout,
      f"tune names the MPI only in a comment: exit {proc.returncode}: {proc.stdout[-300:]}")

# Open MPI's own flag handed to Hydra: refused before any launch, naming the MPI's points.
open(spec, "w").write(SPEC.replace("launcher_args: []", "launcher_args: [-x, FOO]"))
proc = subprocess.run([args.colltune, "sweep", spec, "--dry-run"], env=env, capture_output=True,
                      text=True, timeout=60)
check(proc.returncode == 2 and "(points under mpich)" in proc.stderr and
      "'-x' (Open MPI's export of a variable)" in proc.stderr,
      f"Open MPI's launcher_args under MPICH: exit {proc.returncode}: {proc.stderr[-400:]}")
shutil.rmtree(work, ignore_errors=True)
finish("mpi_axis")
