"""A rank that never reaches its communicator's creation (a node that never arrives, a bootstrap
that cannot connect) no longer hangs the others for ever: the watchdog is armed around creation
and the context gathering, so the job ends with 4 and a message naming that step; the JSONL
file is not left behind as final. Before, the peers waited in MPI_Comm_dup (NCCL: its bootstrap)
with no deadline."""
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
out = os.path.join(harness.workdir(), "s.jsonl")
try:
    code, stdout, stderr, seconds = harness.run(args, [
        "--coll", "allreduce", "-b", "1K", "-e", "4K", "--timeout", "2", "--json", out,
        "--test-hang-setup-rank", str(args.np - 1)], limit_seconds=60)
except subprocess.TimeoutExpired:
    code, stderr, seconds = None, "", 60.0
check(code in harness.timeout_exits(),
      f"a rank missing at creation: exit {code}; the README promises 4 for --timeout")
check(seconds < 30, f"the job took {seconds:.1f} s to end with --timeout 2")
check("creating the communicators (mpi init) and gathering the run context" in stderr
      and "did not finish within 2 s (--timeout)" in stderr,
      f"the message does not name the creation step: {stderr[-1200:]}")
check(not os.path.exists(out), "the final file exists although nothing was measured")
harness.finish("hang_setup")
