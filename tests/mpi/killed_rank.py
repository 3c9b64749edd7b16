"""A rank killed with SIGKILL mid-run ends the job promptly with a failure, and the records
finished before it stay in the .partial file."""
import os
import signal
import subprocess
import time

import harness
from harness import check

args = harness.parse_args()
out = os.path.join(harness.workdir(), "k.jsonl")
proc = subprocess.Popen(harness.mpirun_argv(args, [
    "--coll", "allreduce", "-b", "1K", "-e", "1G", "-f", "2", "-n", "50", "--repetitions", "50",
    "-c", "0", "--json", out]), env=harness.mpi_env(), stdout=subprocess.PIPE,
    stderr=subprocess.PIPE, text=True)

# Wait until some records are finished, then kill one rank.
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    if os.path.exists(out + ".partial") and len(harness.read_jsonl(out + ".partial")) >= 2:
        break
    time.sleep(0.1)
pids = harness.rank_pids(proc.pid, args.colltune)
check(len(pids) == args.np, f"found rank pids {pids}")
if pids:
    os.kill(int(pids[-1]), signal.SIGKILL)
killed_at = time.monotonic()
try:
    stdout, stderr = proc.communicate(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    stdout, stderr = proc.communicate()
    check(False, "mpirun still running 60 s after a rank was killed")
# mpirun reports a rank killed by a signal as 128 + the signal, Hydra as the signal (README:
# exit codes).
check(proc.returncode == harness.killed_exit(signal.SIGKILL),
      f"the launcher exited {proc.returncode} after a rank was killed by SIGKILL, expected "
      f"{harness.killed_exit(signal.SIGKILL)}")
check(time.monotonic() - killed_at < 30, "the job took over 30 s to end")
check(not os.path.exists(out), "the final file exists although the run did not finish")
records = harness.read_jsonl(out + ".partial")
check(len(records) >= 2, f"only {len(records)} finished records kept")
harness.finish("killed_rank")
