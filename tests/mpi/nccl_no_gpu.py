"""The NCCL backend on a host without a usable GPU (GPUs hidden here): one line saying what it
looked for and what it found, exit 2, nothing written; and --interleave NCCL_ALGO refused where a
NCCL config file sets it. Skipped where this build has no NCCL backend."""
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
version = subprocess.run([args.colltune, "--version"], capture_output=True, text=True).stdout
if " nccl" not in version:
    harness.skip("nccl_no_gpu", f"this build has no NCCL backend ({version.strip()})")
# The NCCL backend, where built, fails at once on a host without a GPU (GPUs hidden here), with
# one line saying what it looked for and what it found, and writes nothing.
out = os.path.join(harness.workdir(), "nccl.jsonl")
env = dict(harness.mpi_env(), CUDA_VISIBLE_DEVICES="")
proc = subprocess.run(harness.mpirun_argv(args, ["--backend", "nccl", "--json", out]), env=env,
                      capture_output=True, text=True, timeout=60)
lines = [l for l in proc.stderr.splitlines() if l.startswith("colltune")]
check(proc.returncode == 2, f"--backend nccl without a GPU: exit {proc.returncode}")
check(len(lines) == 1 and "--backend nccl: no CUDA device" in lines[0] and
      "cudaGetDeviceCount" in lines[0], f"--backend nccl without a GPU: {lines}")
check(not os.path.exists(out) and not os.path.exists(out + ".partial"), "nccl: a file was written")
# --interleave NCCL_ALGO where a NCCL config file sets it: every rank refuses together, before
# looking for a GPU, with one line naming the file (NCCL would apply it to some settings only).
conf = os.path.join(harness.workdir(), "nccl.conf")
with open(conf, "w") as f:
    f.write("NCCL_DEBUG=WARN\nNCCL_ALGO=Tree\n")
conf_env = {k: v for k, v in env.items() if k != "NCCL_ALGO"}
conf_env["NCCL_CONF_FILE"] = conf
proc = subprocess.run(harness.mpirun_argv(args, ["--backend", "nccl", "--interleave",
                                                 "NCCL_ALGO=Ring,default", "--json", out]),
                      env=conf_env, capture_output=True, text=True, timeout=60)
lines = [l for l in proc.stderr.splitlines() if l.startswith("colltune")]
check(proc.returncode == 2 and len(lines) == 1 and f"NCCL_ALGO is set in {conf}" in lines[0],
      f"--interleave NCCL_ALGO with a config file: exit {proc.returncode}, {lines}")
check(not os.path.exists(out) and not os.path.exists(out + ".partial"),
      "--interleave NCCL_ALGO: a file was written")
# Without a launcher a GPU backend runs as one process and never initialises MPI.
proc = subprocess.run([args.colltune, "run", "--backend", "nccl"], env=env, capture_output=True,
                      text=True, timeout=30)
lines = proc.stderr.strip().splitlines()
check(proc.returncode == 2 and len(lines) == 1 and "no CUDA device" in lines[0],
      f"--backend nccl without mpirun: exit {proc.returncode}, {lines}")
# Single-process mode (-g N, no launcher) says the same, at once.
proc = subprocess.run([args.colltune, "run", "--backend", "nccl", "-g", "4", "--json", out],
                      env=env, capture_output=True, text=True, timeout=30)
lines = proc.stderr.strip().splitlines()
check(proc.returncode == 2 and len(lines) == 1 and "no CUDA device" in lines[0] and
      "CUDA_VISIBLE_DEVICES=" in lines[0], f"-g 4 without a GPU: exit {proc.returncode}, {lines}")
check(not os.path.exists(out) and not os.path.exists(out + ".partial"), "-g 4: a file was written")
# --interleave NCCL_ALGO on one rank (one process, one GPU) would measure one thing N times:
# refused before any GPU is looked for, so here too.
proc = subprocess.run([args.colltune, "run", "--backend", "nccl", "--interleave",
                       "NCCL_ALGO=Ring,Tree"], env=env, capture_output=True, text=True, timeout=30)
lines = proc.stderr.strip().splitlines()
check(proc.returncode == 2 and len(lines) == 1 and "allowed: 2 or more ranks" in lines[0],
      f"--interleave NCCL_ALGO on one rank: exit {proc.returncode}, {lines}")
harness.finish("nccl_no_gpu")
