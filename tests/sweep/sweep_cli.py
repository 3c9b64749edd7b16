"""Bad specs exit 2 with one line and create nothing; --dry-run and --emit-sbatch run nothing."""
import json
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
results = os.path.join(work, "results")
cases = [
    ("axes:\n  np: [2]\n  NCCL_P2P_LEVEL: [NVL, NVLINK]\n",
     "spec.yaml:3:25: axes.NCCL_P2P_LEVEL: 'NVLINK' is not allowed"),
    ("repetitons: 2\n", "repetitons: unknown key (did you mean 'repetitions'?)"),
    ("benchmark: {dtypes: [int16]}\n", "benchmark: -d/--datatype: 'int16' is not a datatype"),
    ("axes:\n  np: []\n", "axes.np: [] is empty"),
    ("point_timeout_seconds: -1\n", "point_timeout_seconds: '-1' is not allowed"),
    # Preflight: what would fail every launch is found before the first (exit 2, one line).
    ("", "spec.yaml: the spec is empty; allowed: a spec with at least one key"),
    ("# only a comment\n", "spec.yaml: the spec is empty"),
    ("? [a]\n: 1\n", "spec.yaml:1:3: spec: a list or mapping as a key is not allowed"),
    ("hostfile: /nonexistent/hosts\n",
     "spec.yaml: hostfile: '/nonexistent/hosts' cannot be read (No such file or directory)"),
    ("colltune: /nonexistent/colltune\n",
     "spec.yaml: colltune: '/nonexistent/colltune' is not an executable file"),
    ("colltune: /\n", "spec.yaml: colltune: '/' is not an executable file"),
    ("axes:\n  np: 16\n  nodes: 2\n  ranks_per_node: 4\n",
     "axes: np 16 with nodes 2 x ranks_per_node 4 = 8; allowed: np equal to nodes x ranks_per_node"),
]
for text, expected in cases:
    spec = h.write_spec(work, text)
    code, stdout, stderr = h.run_sweep(args, spec, "--results", results, limit_seconds=20)
    lines = stderr.strip().splitlines()
    check(code == 2, f"{expected}: exit {code}")
    check(len(lines) == 1 and expected in lines[0], f"{expected}: stderr {lines}")
    check(not os.path.exists(results), f"{expected}: a store was created")

# No launcher on PATH; a results directory that cannot be one: one line each, no rank prefix.
spec = h.write_spec(work, "name: pre\n")
env = dict(os.environ, PATH="/nonexistent")
proc = subprocess.run([args.colltune, "sweep", spec, "--results", results], env=env,
                      capture_output=True, text=True, timeout=20)
check(proc.returncode == 2 and proc.stderr.strip() ==
      f"colltune: error: {spec}: launcher: 'mpirun' is not on PATH; allowed: a PATH that holds "
      "it (every launch would fail), or launcher: srun or local",
      f"no mpirun: exit {proc.returncode}: {proc.stderr}")
check(not os.path.exists(results), "no mpirun: a store was created")

# A launcher whose --version names no MPI (a site wrapper, say): exit 2 before any launch, quoting
# what it said and how to name the family in the spec, even for a dry run.
fake = os.path.join(work, "fakebin")
os.makedirs(fake)
with open(os.path.join(fake, "mpirun"), "w") as f:
    f.write("#!/bin/sh\necho 'SiteLaunch 3.2 (cluster wrapper)'\n")
os.chmod(os.path.join(fake, "mpirun"), 0o755)
env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"])
proc = subprocess.run([args.colltune, "sweep", spec, "--results", results, "--dry-run"], env=env,
                      capture_output=True, text=True, timeout=20)
check(proc.returncode == 2 and proc.stderr.strip() ==
      f"colltune: error: {spec}: launcher: 'mpirun --version' says 'SiteLaunch 3.2 (cluster "
      "wrapper)', which names no MPI colltune knows; allowed: Open MPI's mpirun, MPICH's or Intel "
      "MPI's mpiexec, or name the family in the spec (mpi_family: openmpi, mpich or intelmpi)",
      f"unknown launcher: exit {proc.returncode}: {proc.stderr}")
check(not os.path.exists(results), "unknown launcher: a store was created")
spec_named = h.write_spec(work, "name: pre\nmpi_family: openmpi\n", "named.yaml")
proc = subprocess.run([args.colltune, "sweep", spec_named, "--results", results, "--dry-run"],
                      env=env, capture_output=True, text=True, timeout=20)
check(proc.returncode == 0 and any(l.startswith("mpirun ") for l in proc.stdout.splitlines()),
      f"unknown launcher, family named: exit {proc.returncode}: {proc.stderr[-400:]}")
code, _, stderr = h.run_sweep(args, spec, "--results", os.path.join(spec, "sub"))
check(code == 2 and stderr.strip().endswith("is not a writable directory); allowed: a directory "
                                             "this user can write")
      and "rank" not in stderr, f"--results under a file: exit {code}: {stderr}")

code, _, stderr = h.run_sweep(args, "--resume", work)
check(code == 2 and "is not a sweep store" in stderr, f"--resume of a non-store: {code} {stderr}")

code, stdout, _ = h.run_sweep(args, "--dry-run")
launches = [l for l in stdout.splitlines() if l.startswith("mpirun ") or " mpirun " in l]
# 46 points; the algorithms of each (np, bind_to) share one launch (interleave:), so 4 launches.
check(code == 0 and len(launches) == 4 and stdout.count("# [") == 46,
      f"built-in default dry run: {code}, {len(launches)} launches")
check(all(l.count("--interleave-set") in (11, 12) for l in launches),
      f"built-in default: settings per launch {[l.count('--interleave-set') for l in launches]}")

# Where a GPU is visible (or with --gpus N) the built-in default sweeps NCCL on N GPUs driven
# from one process; --gpus 0 forces the Open MPI default.
code, stdout, _ = h.run_sweep(args, "--gpus", "2", "--dry-run")
launches = [l for l in stdout.splitlines() if " run " in l and not l.startswith("#")]
check(code == 0 and len(launches) == 18, f"GPU default dry run: {code}, {len(launches)} launches")
check(all(" -g 2 " in l and "--backend nccl" in l and "mpirun" not in l for l in launches),
      f"GPU default launches: {launches[:2]}")
check(not any("NCCL_ALGO=" in l and "NCCL_PROTO=" in l for l in launches), "two knobs at once")
check(sum("NCCL_ALGO=Tree " in l for l in launches) == 3, "NCCL_ALGO=Tree is not swept 3 rounds")
code, stdout, _ = h.run_sweep(args, "--gpus", "0", "--dry-run")
check(code == 0 and stdout.count("# [") == 46 and "nccl" not in stdout, "--gpus 0: not the MPI default")
# One GPU is one rank, where NCCL never reads NCCL_ALGO / NCCL_PROTO: refused, naming why.
code, stdout, stderr = h.run_sweep(args, "--gpus", "1", "--dry-run")
check(code == 2 and "--gpus: 1; allowed: 0, or 2 or more" in stderr and "one-rank" in stderr
      and "# [" not in stdout, f"--gpus 1: exit {code}, {stderr}")
code, _, stderr = h.run_sweep(args, spec, "--gpus", "2", "--dry-run")
check(code == 2 and "--gpus: picks a built-in default" in stderr, f"--gpus with a spec: {stderr}")

spec = h.write_spec(work, "name: cluster\nlauncher: srun\naxes:\n  np: [8, 16]\n  nodes: 2\n")
code, stdout, _ = h.run_sweep(args, spec, "--emit-sbatch")
check(code == 0 and stdout.startswith("#!/bin/bash\n"), "no batch script")
check("#SBATCH --ntasks=16" in stdout and "sweep " + os.path.abspath(spec) in stdout,
      f"batch script: {stdout}")
# --dry-run is safe to paste and to share: secrets redacted as records redact them (the whole
# documented list), every word quoted, one launch per line. A newline in a value is refused
# (a control character would forge lines in reports, JUnit and the terminal).
secrets = {"NCCL_IB_TOKEN": "tok1", "UCX_PASSWD": "pw2", "OMPI_MCA_CREDENTIAL": "cr3",
           "NCCL_AUTH_X": "au4", "UCX_PRIVATE_Y": "pr5", "NCCL_KEY": "ke6", "UCX_SECRET": "se7",
           "NCCL_PASSWORD": "pa8"}
spec = h.write_spec(work, "name: paste\nenv: {" + ", ".join(f"{k}: {v}" for k, v in secrets.items())
                    + "}\naxes:\n  np: 2\n  UCX_NOTE: [\"a\\nb\", plain]\n")
code, stdout, stderr = h.run_sweep(args, spec, "--dry-run")
check(code == 2 and "axes.UCX_NOTE[0]: holds a control character (\\x0a)" in stderr,
      f"a newline in an axis value: exit {code}: {stderr}")
spec = h.write_spec(work, "name: paste\nenv: {" + ", ".join(f"{k}: {v}" for k, v in secrets.items())
                    + "}\naxes:\n  np: 2\n  UCX_NOTE: [\"a'b; rm -rf /tmp/x\", plain]\n")
code, stdout, stderr = h.run_sweep(args, spec, "--dry-run")
launch_lines = [l for l in stdout.splitlines() if not l.startswith("#")]
check(code == 0 and len(launch_lines) == stdout.count("# [") == 3,  # the baseline, 2 values
      f"dry run: exit {code}, {len(launch_lines)} launch lines: {stdout} {stderr}")
for value in secrets.values():
    check(value not in stdout, f"--dry-run printed a secret ({value})")
check(stdout.count("=\'<redacted>\'") >= 2 * len(secrets), f"secrets not redacted: {stdout[:800]}")
check("UCX_NOTE='a'\\''b; rm -rf /tmp/x'" in stdout, f"value not quoted: {stdout[:800]}")

# A spec value that is not UTF-8 reaches the ranks and is kept, escaped, in records and manifest.
byte_spec = os.path.join(work, "bytes.yaml")
with open(byte_spec, "wb") as f:
    f.write(b"name: bytes\npoint_timeout_seconds: 60\nenv: {UCX_X: \"a\xffb\"}\n"
            b"benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 8, samples: 2}\n"
            b"axes:\n  np: 2\n")
code, _, stderr = h.run_sweep(args, byte_spec, "--results", os.path.join(work, "bytes"))
store = h.the_store(os.path.join(work, "bytes"))
records = [json.loads(l) for d, _, files in os.walk(store or work) for f in files
           if f.endswith(".jsonl") for l in open(os.path.join(d, f))]
check(code == 0 and store and h.manifest(store)["launches"][0]["status"] == "done" and records
      and all(r["context"]["environment"]["UCX_X"] == "a\\xffb" for r in records),
      f"non-UTF-8 spec value: exit {code}, {len(records)} records: {stderr[-400:]}")

# Every example spec in configs/ parses and expands.
configs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs")
for name in sorted(os.path.relpath(os.path.join(d, f), configs)
                   for d, _, files in os.walk(configs) for f in files if f.endswith(".yaml")):
    code, stdout, stderr = h.run_sweep(args, os.path.join(configs, name), "--dry-run")
    check(code == 0 and stdout.count("# [") > 0, f"configs/{name}: exit {code} {stderr}")

# A backend this build lacks is refused before anything runs.
version = subprocess.run([args.colltune, "--version"], capture_output=True, text=True).stdout
if " nccl" not in version:
    spec = h.write_spec(work, "benchmark: {backends: [nccl]}\n")
    code, _, stderr = h.run_sweep(args, spec, "--results", results)
    check(code == 2 and "backend: 'nccl' is not built into this colltune" in stderr, f"nccl: {stderr}")
    check(not os.path.exists(results), "a store was created for an unrunnable spec")
h.finish("sweep_cli")
