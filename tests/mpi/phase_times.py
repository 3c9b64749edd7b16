"""--phase-times under real mpirun: rank 0 prints one line with every phase of the launch, the
phases add up to no more than the process's wall time, which is no more than the launcher's as
timed here, and the sampling phase holds at least rank 0's own samples (from the records'
rank_samples_seconds, times the ops in each: the sum is worked out here, not by colltune).
Without the flag no such line is printed."""
import os
import re

import harness
from harness import check

args = harness.parse_args()
work = harness.workdir()
race, race_env = harness.algorithm_race(3)
os.environ.update(race_env)
out = os.path.join(work, "r.jsonl")
code, _, stderr, seconds = harness.run(
    args, ["-b", "8", "-e", "64K", "-f", "8", "--in-place", "never", "--rank-samples",
           "--interleave", race, "--json", out,
           "--phase-times"])
check(code == 0, f"exit {code}: {stderr[-600:]}")
lines = [l for l in stderr.splitlines() if "phase times (rank 0)" in l]
check(len(lines) == 1, f"expected one phase line from rank 0, got {lines}")
if lines:
    phases = {name: float(value) for name, value in
              re.findall(r"([a-z][a-z -]*?) (-?[0-9.]+) s(?: \([0-9-]+%\))?", lines[0])}
    wall = phases.pop("wall", None)
    other = phases.pop("other", None)
    expected = ["startup", "context", "communicators", "warm-up", "calibration", "sampling",
                "decisions", "summaries", "validation", "records", "teardown"]
    check(sorted(phases) == sorted(expected) and wall is not None and other is not None,
          f"phases {sorted(phases)}, wall {wall}, other {other}: {lines[0]}")
    if wall is not None:
        check(all(v >= 0 for v in phases.values()), f"a negative phase: {phases}")
        check(sum(phases.values()) <= wall + 0.002, f"phases add up to more than the wall {wall}")
        check(wall <= seconds, f"the process's wall {wall} s exceeds the launcher's {seconds:.3f} s")
        records = harness.read_jsonl(out)
        own = sum(sum(r["rank_samples_seconds"][0]) * r["ops_per_sample"] for r in records)
        # The line rounds to 1 ms: half of it is the slack.
        check(phases.get("sampling", 0) >= own - 0.0005,
              f"sampling {phases.get('sampling')} s holds less than rank 0's own samples {own:.4f} s")
        # MPI_Init takes tenths of a second; the communicators (MPI_Comm_dup and MPI_T writes,
        # the tool interface opened before MPI_Init) now round to 0 ms, so only startup is seen.
        check(phases.get("startup", 0) > 0.01, f"startup not counted: {phases}")

code, _, stderr, _ = harness.run(args, ["-b", "8", "-e", "8", "--json", out])
check(code == 0 and "phase times" not in stderr, f"without the flag: exit {code}: {stderr[-300:]}")
harness.finish("phase_times")
