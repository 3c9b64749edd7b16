"""A rank stopped with SIGSTOP (it answers nothing, not even the roll call's UDP query) is named
by another rank when --timeout fires: exactly one report line, from a rank still running, naming
the stopped one silent; the job ends with 4."""
import os
import re
import signal
import subprocess

import harness
from harness import check

args = harness.parse_args()
stopped = args.np - 1
run_args = ["--coll", "allreduce", "-b", "1K", "-e", "4K", "-f", "2", "-n", "2",
            "--repetitions", "2", "--timeout", "2", "--test-stop-rank", str(stopped)]
try:
    code, stdout, stderr, seconds = harness.run(args, run_args, limit_seconds=60)
except subprocess.TimeoutExpired as e:
    code, stderr, seconds = None, e.stderr or "", 60.0
    stderr = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
finally:
    # A stopped rank that mpirun failed to end would hold its ports and memory: end it here.
    ps = subprocess.run(["ps", "-eo", "pid=,stat=,args="], capture_output=True, text=True)
    for line in ps.stdout.splitlines():
        pid, stat, command = line.split(None, 2)
        if stat.startswith("T") and "--test-stop-rank" in command and args.colltune in command:
            os.kill(int(pid), signal.SIGKILL)
            check(False, f"a stopped rank outlived mpirun: {line}")

check(code in harness.timeout_exits(),
      f"a job with a stopped rank exited {code}; the README promises 4 for --timeout")
check(seconds < 40, f"the job with a stopped rank took {seconds:.1f} s to end with --timeout 2")
reports = [l for l in stderr.splitlines() if "did not finish within 2 s (--timeout)" in l]
check(len(reports) == 1, f"{len(reports)} timeout reports, expected one: {stderr[-1500:]}")
if reports:
    line = reports[0]
    reporter = re.match(r"colltune: rank (\d+) on \S+: ", line)
    check(reporter is not None, f"the report names no reporting rank: {line}")
    check(reporter is None or int(reporter.group(1)) != stopped,
          f"the stopped rank {stopped} cannot report, yet the line says so: {line}")
    check(re.search(rf"roll call: rank {stopped} on \S+ does not answer", line),
          f"the report does not name rank {stopped} silent: {line}")
    check("allreduce float sum of 4096 B in-place" in line, "the report does not name the step")
harness.finish("stopped_rank")
