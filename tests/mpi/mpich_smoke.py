"""colltune built against Debian's MPICH (colltune-mpich4, scripts/setup.sh --with-test-tools) and
run through MPICH's own Hydra mpiexec: an allreduce validated at np 2 with the header's one-line
MPI; a two-point sweep (launcher: mpiexec) that binds each rank to a core and exports an MPICH
algorithm variable, both read back from the records; another dialect's flag refused (exit 2)
before any launch. The algorithm names `topo --list-algorithms` reads from MPICH are the ones
MPICH accepts; --interleave races them in one launch; names MPICH lacks are refused. Skipped (77) without that build or MPICH's mpiexec."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish, skip  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True, help="a colltune built against MPICH")
parser.add_argument("--openmpi-colltune", required=True, help="the main build's colltune")
args = parser.parse_args()
hydra = shutil.which("mpiexec.mpich") or shutil.which("mpiexec.hydra")
if not os.access(args.colltune, os.X_OK):
    skip("mpich_smoke", f"no colltune built against MPICH at {args.colltune} "
                        "(scripts/setup.sh --with-test-tools builds it where MPICH is installed)")
if hydra is None:
    skip("mpich_smoke", "no MPICH mpiexec here (apt install mpich)")

work = tempfile.mkdtemp(prefix="colltune-mpich-")
# `mpiexec` first on PATH as a user of MPICH has it; Hydra finds its proxy beside itself.
bin_dir = os.path.join(work, "bin")
os.makedirs(bin_dir)
os.symlink(os.path.realpath(hydra), os.path.join(bin_dir, "mpiexec"))
proxy = shutil.which("hydra_pmi_proxy")
if proxy:
    os.symlink(proxy, os.path.join(bin_dir, "hydra_pmi_proxy"))
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")

out = os.path.join(work, "run.jsonl")
proc = subprocess.run(["mpiexec", "-n", "2", args.colltune, "run", "--coll", "allreduce,alltoall",
                       "-b", "8", "-e", "1M", "-f", "64", "-n", "3", "--repetitions", "3",
                       "--json", out], env=env, capture_output=True, text=True, timeout=240)
check(proc.returncode == 0, f"mpiexec -n 2 colltune run: exit {proc.returncode}: {proc.stderr[-600:]}")
mpi_lines = [line for line in proc.stdout.splitlines() if line.startswith("# mpi:")]
check(len(mpi_lines) == 1 and mpi_lines[0].startswith("# mpi: MPICH 4.") and len(mpi_lines[0]) < 40,
      f"the header's MPI line: {mpi_lines}")
records = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
check(records and all(r["nranks"] == 2 and r["wrong"] == 0 for r in records),
      "records: 2 ranks, #wrong 0")
check(records and records[0]["context"]["mpi_family"] == "MPICH" and
      records[0]["context"]["mpi_version"].startswith("4."),
      f"context mpi_family/mpi_version: {records[0]['context'].get('mpi_family') if records else None}")

# The algorithm names colltune reads from MPICH's MPI_T texts are the ones MPICH itself accepts:
# MPICH refuses an unknown name at MPI_Init ("Invalid ... value"), so each name must start.
proc = subprocess.run([args.colltune, "topo", "--list-algorithms", "--json"], env=env,
                      capture_output=True, text=True, timeout=60)
offered = json.loads(proc.stdout) if proc.returncode == 0 else {"knobs": []}
allreduce = [k for k in offered["knobs"]
             if k["env_name"] == "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"]
names = allreduce[0]["values"] if allreduce else []
check(offered.get("mpi_family") == "MPICH" and {"auto", "recursive_doubling", "smp"} <= set(names),
      f"topo --list-algorithms: exit {proc.returncode}, allreduce values {names}")
for name in names + ["no_such_algorithm"]:
    one = dict(env, MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=name)
    proc = subprocess.run(["mpiexec", "-n", "1", args.colltune, "run", "--coll", "allreduce",
                           "-b", "8", "-e", "8", "-n", "1", "-w", "0", "--repetitions", "1"],
                          env=one, capture_output=True, text=True, timeout=60)
    if name == "no_such_algorithm":
        check(proc.returncode != 0, "MPICH itself refuses a name it lacks (the oracle can fail)")
    else:
        check(proc.returncode == 0, f"MPICH accepts the listed name {name}: {proc.stderr[-300:]}")

# Racing in one launch: MPICH reads the variable at every call, colltune writes it through MPI_T.
out = os.path.join(work, "race.jsonl")
interleave = ["mpiexec", "-n", "4", args.colltune, "run", "--coll", "allreduce", "-b", "8",
              "-e", "64K", "-f", "32", "-n", "5", "--repetitions", "5", "--json", out,
              "--interleave", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling,smp,default"]
proc = subprocess.run(interleave, env=dict(env, MPIR_CVAR_DEVICE_COLLECTIVES="none"),
                      capture_output=True, text=True, timeout=240)
check(proc.returncode == 0, f"--interleave on MPICH: exit {proc.returncode}: {proc.stderr[-600:]}")
records = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
settings = {r.get("in_process_knobs", {}).get("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM")
            for r in records}
check(settings == {"recursive_doubling", "smp", "default"} and
      all(r["wrong"] == 0 and r["nranks"] == 4 for r in records),
      f"interleaved settings in the records: {settings}")
proc = subprocess.run(interleave, env=env, capture_output=True, text=True, timeout=120)
check(proc.returncode == 2 and "MPIR_CVAR_DEVICE_COLLECTIVES=none" in proc.stderr,
      f"without MPIR_CVAR_DEVICE_COLLECTIVES=none: exit {proc.returncode}: {proc.stderr[-300:]}")
bad = interleave[:-1] + ["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling,rung"]
proc = subprocess.run(bad, env=dict(env, MPIR_CVAR_DEVICE_COLLECTIVES="none"),
                      capture_output=True, text=True, timeout=120)
check(proc.returncode == 2 and "'rung' is not allowed" in proc.stderr and
      "recursive_doubling" in proc.stderr,
      f"a name this MPICH lacks: exit {proc.returncode}: {proc.stderr[-300:]}")

spec = os.path.join(work, "s.yaml")
with open(spec, "w") as f:
    f.write("""name: mpich-smoke
launcher: mpiexec
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 64K, step_factor: 64, iters: 3, samples: 3}
axes:
  np: 2
  bind_to: core
  MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM: [null, recursive_doubling]
env: {MPIR_CVAR_DEVICE_COLLECTIVES: none}
""")
results = os.path.join(work, "results")
proc = subprocess.run([args.colltune, "sweep", spec, "--results", results], env=env,
                      capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"sweep through mpiexec: exit {proc.returncode}: {proc.stderr[-600:]}")
seen = {}
for path in glob.glob(os.path.join(results, "*", "points", "*", "round-1.jsonl")):
    r = json.loads(open(path).readline())
    c = r["context"]
    seen[c["environment"].get("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM")] = \
        [p["cpus"] for p in c["placement"]]
check(set(seen) == {None, "recursive_doubling"}, f"the exported variable in the records: {seen}")
# Bound to a core each: one CPU per rank, and not the same one.
check(all(len(cpus) == 2 and all("," not in c and "-" not in c for c in cpus) and
          cpus[0] != cpus[1] for cpus in seen.values()), f"bindings: {seen}")

# A value this MPICH lacks, and its condition missing: exit 2 before any launch.
for extra, said in [("", "'rung' is not allowed; allowed: auto"),
                    ("", "MPIR_CVAR_DEVICE_COLLECTIVES: none")]:
    text = open(spec).read()
    text = (text.replace("[null, recursive_doubling]", "[null, rung]") if "rung" in said
            else text.replace("env: {MPIR_CVAR_DEVICE_COLLECTIVES: none}\n", ""))
    bad_spec = os.path.join(work, "bad.yaml")
    open(bad_spec, "w").write(text)
    proc = subprocess.run([args.colltune, "sweep", bad_spec, "--results", results, "--dry-run"],
                          env=env, capture_output=True, text=True, timeout=60)
    check(proc.returncode == 2 and said in proc.stderr,
          f"sweep refuses ({said}): exit {proc.returncode}: {proc.stderr[-300:]}")

# The Open MPI build driving MPICH's launcher: its ranks would not form one job.
proc = subprocess.run([args.openmpi_colltune, "sweep", spec, "--results", results, "--dry-run"],
                      env=env, capture_output=True, text=True, timeout=60)
check(proc.returncode == 2 and "is built against Open MPI" in proc.stderr,
      f"a colltune of another MPI than the launcher's: exit {proc.returncode}: {proc.stderr[-300:]}")

with open(spec, "a") as f:
    f.write("launcher_args: [-x, FOO]\n")
proc = subprocess.run([args.colltune, "sweep", spec, "--results", results, "--dry-run"], env=env,
                      capture_output=True, text=True, timeout=60)
check(proc.returncode == 2 and "launcher_args: '-x' (Open MPI's export of a variable) is not "
      "Hydra's" in proc.stderr, f"Open MPI's -x under Hydra: exit {proc.returncode}: {proc.stderr}")
shutil.rmtree(work, ignore_errors=True)
finish("mpich_smoke")
