"""Bad arguments exit 2 within seconds, with one clear line, no hang and no output file."""
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
cases = [
    (["-d", "int16"], "-d/--datatype: 'int16' is not a datatype"),
    (["-b", "64M", "-e", "8M"], "-b/--minbytes: 64M is larger than -e/--maxbytes 8M"),
    (["--coll", "scan"], "--coll: 'scan' is not a collective"),
    (["--buffers", "gpu"], "--buffers: 'gpu' is not allowed; allowed: host device"),
    (["--coll", "alltoallv", "--exchange", "zipf:-1"], "--exchange: 'zipf:-1' is not allowed"),
    (["--backend", "ucc"], "--backend: 'ucc' is not built into this colltune"),
    (["--coll", "broadcast", "-r", str(args.np)],
     f"-r/--root: {args.np} is not a rank of this job; allowed: 0 to {args.np - 1}"),
    (["--timeout", "soon"], "--timeout: 'soon' is not allowed"),
    # 4 B holds no float for each rank of an alltoall: one float (4 B) per rank is 4 x np.
    (["--coll", "alltoall", "-b", "4", "-e", "4"],
     f"--maxbytes: 4 B holds less than one element per block of what was asked on {args.np} "
     f"ranks; allowed: {4 * args.np} or more"),
    (["--frobnicate"], "--frobnicate: not a colltune run flag; allowed: the flags colltune run "
                       "--help lists"),
    (["--repetition", "3"], "--repetition: not a colltune run flag (did you mean --repetitions?)"),
    # nccl-tests' flags: -t more than 1 is refused with the reason, -T is --timeout.
    (["-t", "2"], "-t/--nthreads: 2: colltune drives a process's GPUs from one thread"),
    (["-T", "soon"], "--timeout: 'soon' is not allowed"),
    # NCCL settings on the MPI backend were silently ignored; now refused, naming the flag.
    (["-G"], "-G/--graph: an NCCL setting the MPI backend has no use for; allowed: --backend nccl"),
    (["--nccl-blocking", "0"], "--nccl-blocking: an NCCL setting the MPI backend has no use for"),
]
# --buffers device on an MPI that is not CUDA-aware (Debian's Open MPI): refused before any
# allocation, alike on every rank. Where ompi_info says CUDA was built in, this case cannot run.
ompi_info = subprocess.run(["ompi_info", "--parsable", "--all"], capture_output=True, text=True)
if harness.MPI_UNDER_TEST == "mpich":
    # Debian's MPICH is built without GPU support; MPICH itself answers (MPIX_GPU_query_support).
    cases.append((["--buffers", "device"],
                  "colltune: error: --buffers device: this MPI is not CUDA-aware "
                  "(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) says 0); allowed: --buffers host"))
elif "mpi_built_with_cuda_support:value:true" in ompi_info.stdout:
    print("bad_args: NOT CHECKED: --buffers device refusal (this Open MPI is CUDA-aware)")
else:
    cases.append((["--buffers", "device"],
                  "colltune: error: --buffers device: this MPI is not CUDA-aware "
                  "(MPIX_Query_cuda_support() returns 0); allowed: --buffers host, or an MPI "
                  "built CUDA-aware (Open MPI --with-cuda, or UCX with its cuda transports)"))
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
# A run whose every row is skipped (MPI has no avg) measured nothing: exit 5 and one line why.
out = os.path.join(harness.workdir(), "skipped.jsonl")
code, stdout, stderr, _ = harness.run(args, ["-o", "avg", "-b", "8", "-e", "1K", "--json", out],
                                      limit_seconds=60)
lines = [l for l in stderr.splitlines() if l.startswith("colltune")]
check(code == 5 and len(lines) == 1 and "nothing measured: every row was skipped" in lines[0]
      and "MPI has no avg reduction" in lines[0], f"all skipped: exit {code}, {lines}")
check(os.path.exists(out), "all skipped: the records of the skips were not kept")
harness.finish("bad_args")
