"""The slowest rank defines a collective: with a test-only delay of 20 ms per op on one rank
(added after its ops, inside its timed region, so no peer waits for it there), every recorded
time is at least 20 ms, whichever rank has it, in batch and per-op timing; pingpong, half a
round trip, at least 10 ms. A time reduced by the minimum or mean over ranks instead of the
maximum would fail here; a run without the delay stays far below, so the bound is not met by
accident."""
import os

import harness
from harness import check

args = harness.parse_args()
DELAY = 0.02
work = harness.workdir()


def samples(run_args, name):
    out = os.path.join(work, name + ".jsonl")
    code, _, stderr, _ = harness.run(args, ["-b", "8", "-e", "8", "-n", "2", "--repetitions", "3",
                                            "--json", out] + run_args, limit_seconds=120)
    check(code == 0, f"{run_args}: exit {code} {stderr[-800:]}")
    records = harness.read_jsonl(out) if os.path.exists(out) else []
    return {(r["collective"], r["in_place"]): r["samples_seconds"] for r in records
            if r["skipped"] is None}


plain = samples(["--coll", "allreduce"], "plain")
check(plain and all(max(s) < DELAY for s in plain.values()),
      f"without the delay an 8 B allreduce took {plain}: the bound below proves nothing")
for rank in sorted({0, args.np - 1}):
    for timing in ("batch", "per-op"):
        got = samples(["--coll", "allreduce,pingpong", "--timing", timing, "--test-delay-rank",
                       str(rank), "--test-delay-seconds", str(DELAY)], f"r{rank}-{timing}")
        for (coll, in_place), values in got.items():
            bound = DELAY / 2 if coll == "pingpong" else DELAY
            check(len(values) == 3 and min(values) >= bound,
                  f"delay on rank {rank}, {timing}: {coll} in-place={in_place} recorded "
                  f"{values}, expected every sample >= {bound}")
harness.finish("delay_rank")
