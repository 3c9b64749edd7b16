"""A deliberately flipped element is reported with exit code 7, and #wrong is the sum over ranks:
one element flipped on every rank of allreduce, alltoall, alltoallv and scatter (np), on the root
of reduce and gather and the last rank of bw (1)."""
import os

import harness
from harness import check

args = harness.parse_args()
for coll in ("allreduce", "alltoall", "reduce", "bw", "alltoallv", "gather", "scatter"):
    out = os.path.join(harness.workdir(), "c.jsonl")
    code, stdout, stderr, _ = harness.run(args, [
        "--coll", coll, "-b", "1K", "-e", "1K", "-n", "2", "--repetitions", "2", "--json", out,
        "--test-corrupt"])
    check(code == 7, f"{coll}: exit code {code}, expected 7; stderr {stderr[-1000:]}")
    records = harness.read_jsonl(out)
    wrong = [r["wrong"] for r in records if r["skipped"] is None]
    flipped = args.np if coll in ("allreduce", "alltoall", "alltoallv", "scatter") else 1
    check(wrong and all(w == flipped for w in wrong),
          f"{coll}: #wrong per record {wrong}, expected {flipped}")
    check("FAILED" in stdout, f"{coll}: console footer does not say FAILED")
harness.finish("corrupt")
