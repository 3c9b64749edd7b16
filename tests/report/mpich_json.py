"""MPICH's selection file, for real: `tune --emit mpich-json` by the colltune built against Debian's
MPICH (colltune-mpich4), from a fixed store where smp wins at 1 KiB and recursive doubling at 64 KiB
on 2 ranks. MPICH itself reads the file as it is and applies it: a counting reduction
(tests/mpi/mpich_fingerprint.cpp, 2 ranks) shows smp's pattern (1 reduction on rank 0, none on
rank 1) at 2 KiB with the file and recursive doubling's (1 and 1) without it, and MPICH's own
choice kept at 512 B. `verify` measures the file against the defaults through MPICH's mpiexec,
naming each rule; a copy naming an algorithm MPICH lacks fails every tuned launch, exit 3. The
Open MPI build refuses the emit, and an Open MPI store is refused. Skipped (77) without that
build or MPICH's mpicxx and mpiexec."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

import report_harness as h
from report_harness import check

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True, help="the Open MPI build's colltune")
parser.add_argument("--mpich-colltune", required=True, help="colltune-mpich4")
parser.add_argument("--fingerprint", required=True, help="tests/mpi/mpich_fingerprint.cpp")
args = parser.parse_args()
hydra, mpicxx = shutil.which("mpiexec.mpich"), shutil.which("mpicxx.mpich")
if not os.access(args.mpich_colltune, os.X_OK):
    h.skip("mpich_json", f"no colltune built against MPICH at {args.mpich_colltune} "
                         "(scripts/setup.sh --with-test-tools builds it)")
if hydra is None or mpicxx is None:
    h.skip("mpich_json", "no MPICH mpicxx and mpiexec here (apt install mpich libmpich-dev)")

root = h.fixtures()
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
bin_dir = os.path.join(root, "bin")
os.makedirs(bin_dir)
os.symlink(os.path.realpath(hydra), os.path.join(bin_dir, "mpiexec"))
if shutil.which("hydra_pmi_proxy"):
    os.symlink(shutil.which("hydra_pmi_proxy"), os.path.join(bin_dir, "hydra_pmi_proxy"))
env["PATH"] = bin_dir + os.pathsep + env["PATH"]


def run(argv, **extra):
    return subprocess.run(argv, env=dict(env, **extra), capture_output=True, text=True,
                          timeout=300, cwd=root)


# The store says the MPICH at hand measured it (the fixture's version is 4.0.2).
offered = json.loads(run([args.mpich_colltune, "topo", "--list-algorithms", "--json"]).stdout)
store = os.path.join(root, "mpich")
for path in glob.glob(os.path.join(store, "points", "*", "*.jsonl")):
    text = open(path).read().replace("4.0.2 (fixture)", offered["mpi_version"])
    open(path, "w").write(text)

proc = run([args.mpich_colltune, "tune", store, "--emit", "mpich-json"])
check(proc.returncode == 0 and "MPIR_CVAR_DEVICE_COLLECTIVES=none" in proc.stderr,
      f"tune --emit mpich-json: exit {proc.returncode}: {proc.stderr[-600:]}")
selection = os.path.join(root, "selection.json")
open(selection, "w").write(proc.stdout)
doc = json.loads(proc.stdout) if proc.returncode == 0 else {}
check("collective=bcast" in doc and "comm_size<=2" in doc.get("collective=allreduce", {}).get(
    "comm_type=intra", {}), "MPICH's own tables kept, the 2-rank allreduce rules added")
# smp's restrictions in MPICH's coll_algorithms.txt (commutative, parent-comm) guard its rule:
# a selection file is not checked against them the way a forced CVAR is.
rules = doc.get("collective=allreduce", {}).get("comm_type=intra", {}).get("comm_size<=2", {})
smp = rules.get("avg_msg_size<65536", {}).get("is_commutative=yes", {})
check(smp.get("comm_hierarchy=parent") == {"algorithm=MPIR_Allreduce_intra_smp": {}} and
      list(rules)[0] == "avg_msg_size<1024",
      f"smp guarded by its restrictions, MPICH's own choice below 1 KiB: {json.dumps(rules)[:400]}")

# The env form carries what the algorithm variables need, as measured.
proc = run([args.colltune, "tune", store, "--emit", "env"])
check(proc.returncode == 0 and "export MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=" in proc.stdout and
      "export MPIR_CVAR_DEVICE_COLLECTIVES='none'" in proc.stdout,
      f"tune --emit env: exit {proc.returncode}: {proc.stdout}")

proc = run([args.colltune, "tune", store, "--emit", "mpich-json"])
check(proc.returncode == 2 and "built against Open MPI" in proc.stderr,
      f"the Open MPI build's emit: exit {proc.returncode}: {proc.stderr[-300:]}")
proc = run([args.mpich_colltune, "tune", os.path.join(root, "base"), "--emit", "mpich-json"])
check(proc.returncode == 2 and "measured with Open MPI" in proc.stderr,
      f"an Open MPI store: exit {proc.returncode}: {proc.stderr[-300:]}")

fingerprint = os.path.join(root, "fingerprint")
proc = run([mpicxx, "-O2", "-std=c++17", "-o", fingerprint, args.fingerprint])
check(proc.returncode == 0, f"mpicxx.mpich: {proc.stderr[-400:]}")


def seen(count, with_file):
    extra = {"MPIR_CVAR_DEVICE_COLLECTIVES": "none"}
    if with_file:
        extra["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"] = selection
    proc = run(["mpiexec", "-n", "2", fingerprint, str(count)], **extra)
    return proc.stdout.strip() if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr[-300:]}"


# 256 doubles = 2 KiB, in the file's smp range [1 KiB, 64 KiB); 64 doubles = 512 B, below it.
check(seen(256, False) == "fingerprint: 1/256 1/256", f"without the file: {seen(256, False)}")
check(seen(256, True) == "fingerprint: 1/256 0/0", f"with the file, 2 KiB: {seen(256, True)}")
check(seen(64, True) == "fingerprint: 1/64 1/64", f"with the file, 512 B: {seen(64, True)}")

spec = os.path.join(root, "launch.yaml")
open(spec, "w").write("launcher: mpiexec\nmpi_family: mpich\n")
proc = run([args.mpich_colltune, "verify", selection, "--spec", spec, "--rounds", "3",
            "--results", os.path.join(root, "verify")])
rows = [line for line in proc.stdout.splitlines() if line.startswith("allreduce ")]
check(proc.returncode in (0, 1, 3) and len(rows) == 2 and "every launch with" not in proc.stderr and
      "MPIR_Allreduce_intra_smp for 1024-65535 B on 2 ranks" in proc.stdout and
      "MPIR_Allreduce_intra_recursive_doubling for 65536-1048575 B on 2 ranks" in proc.stdout,
      f"verify: exit {proc.returncode}: {proc.stdout[-600:]} {proc.stderr[-300:]}")
broken = os.path.join(root, "broken.json")
open(broken, "w").write(open(selection).read().replace('MPIR_Allreduce_intra_smp"',
                                                       'MPIR_Allreduce_intra_bogus"'))
proc = run([args.mpich_colltune, "verify", broken, "--spec", spec, "--rounds", "2",
            "--results", os.path.join(root, "verify")])
check(proc.returncode == 3 and "every launch with" in proc.stderr,
      f"a file MPICH cannot take: exit {proc.returncode}: {proc.stderr[-400:]}")

# The same rules behind a "comm_size<=8" entry holding MPICH's own choice (a hand edit; MPICH
# aborts at init where "=any" is not last): MPICH tries a level's keys in file order, so at 2
# ranks it never reaches them. MPICH itself shows it (recursive doubling's pattern at
# 2 KiB with the file), and verify says so before any launch, exit 3, naming the key that wins.
shadowed = os.path.join(root, "shadowed.json")
reordered = json.loads(open(selection).read(), object_pairs_hook=lambda pairs: dict(pairs))
intra = reordered["collective=allreduce"]["comm_type=intra"]
reordered["collective=allreduce"]["comm_type=intra"] = dict(
    [("comm_size<=8", intra["comm_size=any"])] + list(intra.items()))
open(shadowed, "w").write(json.dumps(reordered, indent=2))
selection = shadowed
check(seen(256, True) == "fingerprint: 1/256 1/256",
      f"MPICH with the shadowed file, 2 KiB: {seen(256, True)}")
verify_root = os.path.join(root, "verify-shadowed")
proc = run([args.mpich_colltune, "verify", shadowed, "--spec", spec, "--results", verify_root])
check(proc.returncode == 3 and proc.stderr.count("MPICH never reaches it: 'comm_size<=8' comes "
                                                 "before it in the file and holds there") == 2
      and "nothing was launched" in proc.stderr and not os.path.exists(verify_root),
      f"verify of the shadowed file: exit {proc.returncode}: {proc.stderr[-600:]}")
shutil.rmtree(root, ignore_errors=True)
h.finish("mpich_json")
