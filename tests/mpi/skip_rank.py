"""A skip is one decision for every rank. When one rank alone finds a collective unsupported
(as a rank with another GPU model, NCCL build or environment would), every rank records the same
skip with that rank's reason and goes on (here every row: exit 5, nothing measured); before, that rank skipped while its peers waited in
the collective until --timeout fired (exit 4)."""
import os
import socket
import subprocess

import harness
from harness import check

args = harness.parse_args()
skipper = args.np - 1
PLAN = ["--coll", "allreduce,alltoall", "-b", "8", "-e", "1K", "-f", "4", "-n", "2",
        "--repetitions", "2", "--timeout", "20"]


def records(extra, name, expected_code):
    out = os.path.join(harness.workdir(), name + ".jsonl")
    try:
        code, _, stderr, _ = harness.run(args, PLAN + extra + ["--json", out], limit_seconds=90)
    except subprocess.TimeoutExpired:
        check(False, f"{name}: a rank skipping alone hung the job")
        return []
    check(code == expected_code, f"{name}: exit {code}, expected {expected_code}: {stderr[-600:]}")
    return harness.read_jsonl(out) if os.path.exists(out) else []


plain = records([], "plain", 0)
check(plain and all(r["skipped"] is None for r in plain), "without the flag nothing may skip")
# Every row skipped: 5, the README's "nothing measured", on every rank alike.
skipped = records(["--test-skip-rank", str(skipper)], "skip", 5)
check(len(skipped) == len(plain), f"{len(skipped)} records with a skipping rank, {len(plain)} "
      "without: every collective must still get its record")
host = socket.gethostname()
want = f"rank {skipper} on {host}: --test-skip-rank: this rank skips it"
for r in skipped:
    check(r["skipped"] == want, f"{r['collective']} {r.get('bytes')} B: skipped {r['skipped']!r}, "
          f"expected {want!r}")
    check(not r["samples_seconds"], f"a skipped record has samples: {r['samples_seconds']}")
harness.finish("skip_rank")
