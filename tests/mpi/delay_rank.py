"""The slowest rank defines a collective: with a test-only delay of 20 ms per op on one rank
(added after its ops, inside its timed region, so no peer waits for it there), every recorded
time is at least 20 ms, whichever rank has it, in batch and per-op timing; pingpong, half a
round trip, at least 10 ms. A time reduced by the minimum or mean over ranks instead of the
maximum would fail here; a run without the delay stays far below, so the bound is not met by
accident. -a selects rank 0's time, the mean, the min or the max instead, as nccl-tests' -a."""
import os

import harness
from harness import check

args = harness.parse_args()
harness.per_rank_timing_or_skip("delay_rank", args.np)
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
# -a (nccl-tests' values) picks the reduction over ranks; the delay is on the last rank only, so
# by hand: max >= 20 ms; mean >= 20 ms / np (and below max's); min and rank 0's below 10 ms.
last = str(args.np - 1)
expect = {"3": lambda v: v >= DELAY, "1": lambda v: DELAY / args.np <= v < DELAY * 0.9,
          "2": lambda v: v < DELAY / 2, "0": lambda v: v < DELAY / 2}
names = {"0": "rank0", "1": "mean", "2": "min", "3": "max"}
for a, ok in expect.items():
    out = os.path.join(work, f"a{a}.jsonl")
    code, _, stderr, _ = harness.run(args, ["--coll", "allreduce", "--in-place", "never", "-b", "8",
                                            "-e", "8", "-n", "2", "--repetitions", "3", "-a", a,
                                            "--test-delay-rank", last, "--test-delay-seconds",
                                            str(DELAY), "--json", out], limit_seconds=120)
    records = harness.read_jsonl(out) if code == 0 and os.path.exists(out) else []
    check(len(records) == 1, f"-a {a}: exit {code}: {stderr[-400:]}")
    for r in records:
        median = sorted(r["samples_seconds"])[1]
        check(ok(median) and r["rank_reduction"] == names[a]
              and r["context"]["rank_reduction"] == names[a],
              f"-a {a}: median {median} s, rank_reduction {r['rank_reduction']}")
code, _, stderr, _ = harness.run(args, ["-a", "4"], limit_seconds=60)
check(code == 2 and "-a/--average: '4' is not allowed; allowed: 0 rank0, 1 mean, 2 min, 3 max"
      in stderr, f"-a 4: exit {code}: {stderr[-300:]}")

# A long size shows life: samples of 1.5 s (rank 0's delay) cross the 5 s mark at sample 4 and
# get one line on rank 0 (the next would be 10 s later, past the last sample, which never prints).
code, stdout, stderr, seconds = harness.run(
    args, ["-b", "8", "-e", "8", "-n", "1", "-w", "0", "-c", "0", "--in-place", "never",
           "--repetitions", "8", "--test-delay-rank", "0", "--test-delay-seconds", "1.5"],
    limit_seconds=120)
progress = [l for l in stderr.splitlines() if ": sample " in l]
check(code == 0 and len(progress) == 1, f"progress: exit {code}, lines {progress}")
check(bool(progress) and "allreduce float sum of 8 B out-of-place: sample 4/8, 4/8 ops, " in
      progress[0] and progress[0].endswith(" s elapsed"), f"progress line: {progress}")
harness.finish("delay_rank")
