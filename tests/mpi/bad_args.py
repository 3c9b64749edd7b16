"""Bad arguments exit 2 within seconds, with one clear line, no hang and no output file."""
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
cases = [
    (["-d", "int16"], "-d/--datatype: 'int16' is not a datatype"),
    (["-b", "64M", "-e", "8M"], "-b/--minbytes: 64M is larger than -e/--maxbytes 8M"),
    (["--coll", "gather"], "--coll: 'gather' is not a collective"),
    (["--backend", "ucc"], "--backend: 'ucc' is not built into this colltune"),
    (["--coll", "broadcast", "-r", str(args.np)],
     f"-r/--root: {args.np} is not a rank of this job; allowed: 0 to {args.np - 1}"),
    (["--timeout", "soon"], "--timeout: 'soon' is not allowed"),
    (["--frobnicate"], "The following argument was not expected: --frobnicate"),
]
for extra, expected in cases:
    out = os.path.join(harness.workdir(), "never.jsonl")
    code, stdout, stderr, seconds = harness.run(args, extra + ["--json", out], limit_seconds=30)
    lines = [l for l in stderr.splitlines() if l.startswith("colltune")]
    check(code == 2, f"{extra}: exit code {code}, expected 2")
    check(seconds < 15, f"{extra}: took {seconds:.1f} s")
    check(len(lines) == 1, f"{extra}: {len(lines)} colltune lines on stderr: {lines}")
    check(bool(lines) and expected in lines[0], f"{extra}: message {lines} lacks '{expected}'")
    check(not os.path.exists(out) and not os.path.exists(out + ".partial"),
          f"{extra}: an output file was written")

# --help under the launcher: MPI starts before the options are read, yet the help comes once.
code, stdout, stderr, seconds = harness.run(args, ["--help"], limit_seconds=30)
check(code == 0 and stdout.count("colltune run: measure") == 1 and not stderr.strip(),
      f"run --help under mpirun: exit {code}, {stdout.count('colltune run: measure')} copies, "
      f"stderr {stderr[-300:]}")

# An unwritable output path is bad input too, found before anything is measured.
code, _, stderr, seconds = harness.run(args, ["--json", "/nonexistent-dir/x.jsonl"], limit_seconds=30)
check(code == 2, f"unwritable --json: exit code {code}")
check("--json: '/nonexistent-dir/x.jsonl' cannot be written" in stderr, f"message: {stderr[-500:]}")
check("Collective:" not in _, "measured despite an unwritable --json")
# The NCCL backend, where built, fails at once on a host without a GPU (GPUs hidden here), with
# one line saying what it looked for and what it found, and writes nothing.
version = subprocess.run([args.colltune, "--version"], capture_output=True, text=True).stdout
if " nccl" in version:
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
else:
    print("bad_args: this build has no NCCL backend; its no-GPU check is not run")
harness.finish("bad_args")
