"""On a GPU (label gpu): every collective x dtype x op validates with #wrong 0 through NCCL,
with and without -G; a corrupted element is caught. Skipped (77) where no GPU is visible."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpi"))
import harness  # noqa: E402
from harness import check  # noqa: E402

args = harness.parse_args()
probe = subprocess.run(harness.mpirun_argv(args, ["--backend", "nccl", "-b", "8", "-e", "8"]),
                       env=harness.mpi_env(), capture_output=True, text=True, timeout=120)
if "no CUDA device" in probe.stderr or "not built into this colltune" in probe.stderr:
    print("validate_gpu: skipped, no GPU (or no NCCL backend) here")
    sys.exit(77)
for extra in ([], ["-G"]):
    out = os.path.join(harness.workdir(), "gpu.jsonl")
    code, stdout, stderr, _ = harness.run(args, ["--backend", "nccl", "--coll", "all", "-d", "all",
                                                 "-o", "all", "-b", "8", "-e", "1M", "-f", "64",
                                                 "-n", "2", "--repetitions", "2", "--json", out] + extra)
    check(code == 0, f"{extra}: exit {code}: {stderr[-1500:]}")
    for r in map(json.loads, open(out)):
        if r["skipped"] is None:
            check(r["wrong"] == 0, f"{extra}: {r['collective']} {r['dtype']} {r['op']} {r['bytes']}: #wrong {r['wrong']}")
code, stdout, stderr, _ = harness.run(args, ["--backend", "nccl", "--coll", "allreduce", "-b", "1K", "-e", "1K",
                                             "--test-corrupt"])
check(code == 7 and "FAILED" in stdout, f"corrupted result: exit {code}")
harness.finish("validate_gpu")
