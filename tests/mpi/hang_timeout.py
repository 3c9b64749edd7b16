"""A rank that stops responding is caught by --timeout: the job ends, naming rank and host, and
the records finished before the hang stay in the .partial file."""
import os
import re

import harness
from harness import check

args = harness.parse_args()
out = os.path.join(harness.workdir(), "h.jsonl")
hung = args.np - 1
code, stdout, stderr, seconds = harness.run(args, [
    "--coll", "allreduce", "-b", "1K", "-e", "4K", "-f", "2", "-n", "2", "--repetitions", "2",
    "--timeout", "2", "--json", out, "--test-hang-rank", str(hung)], limit_seconds=60)
check(code in harness.timeout_exits(),
      f"a hung job exited {code}; the README promises 4 for --timeout")
check(seconds < 30, f"the hung job took {seconds:.1f} s to end with --timeout 2")
check("did not finish within 2 s (--timeout)" in stderr, f"no timeout message: {stderr[-1500:]}")
# Whichever rank's watchdog fires first names itself (the peers waiting on the hung one notice
# at about the same time; MPI_Abort may end the others before they print).
check(re.search(r"colltune: rank \d+ on \S+: .* did not finish", stderr),
      f"the message names no rank: {stderr[-800:]}")
check("allreduce float sum of 4096 B in-place" in stderr, "the message does not name the step")
check(not os.path.exists(out), "the final file exists although the run did not finish")
records = harness.read_jsonl(out + ".partial")
check(len(records) == 5, f"{len(records)} finished records kept, expected 5")
harness.finish("hang_timeout")
