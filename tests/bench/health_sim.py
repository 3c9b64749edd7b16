"""bench/health_sim, health's real planner and rule on simulated fleets, held to the namespace
cluster's own figures at N = 4 (docs/health.md: 0 of 20 healthy checks naming a node, 19 of 20
throttled nodes named, 10 of 10 stopped nodes), within 10 points: the model is fitted to that
cluster (its defaults); the throttled node is the model's slow cable (--link-factor 2: every pair
of the node at half the bw, the node itself fine alone). Bad model parameters are exit 2 with one line naming the option and what is allowed."""
import argparse
import os
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--sim", required=True)
args = parser.parse_args()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish, skip  # noqa: E402


proc = subprocess.run([args.sim, "--nodes", "4", "--checks", "100", "--link-factor", "2",
                       "--launch-seconds", "1.5", "--timeout-seconds", "20"],
                      capture_output=True, text=True, timeout=300)
check(proc.returncode == 0, f"health_sim at 4 nodes: exit {proc.returncode}: {proc.stderr}")
row = proc.stdout.splitlines()[-1].split() if proc.stdout else []
rate = lambda text: int(text.split("/")[0]) / int(text.split("/")[1])
if len(row) == 14:
    healthy, cable, stopped = rate(row[6]), rate(row[8]), rate(row[12])
    check(healthy <= 0.0 + 0.10, f"healthy checks naming a node: {row[6]}, namespace 0 of 20")
    check(cable >= 1.0 - 0.10, f"throttled node named: {row[8]}, namespace 20 of 20")
    check(stopped >= 1.0 - 0.10, f"stopped node named: {row[12]}, namespace 10 of 10")
    check(row[9] == "-" and row[5] == "-",
          f"4 nodes under one leaf switch have no uplink to name: {row}")
    check(int(row[1]) == 3, f"4 nodes: {row[1]} rounds, expected the 3 of every pair")
else:
    check(False, f"no table row: {proc.stdout[-400:]}")

# Nothing slow at all (factors 1): the slow node, cable and link scenarios must name nothing.
proc = subprocess.run([args.sim, "--nodes", "4", "--checks", "50", "--slow-factor", "1",
                       "--link-factor", "1"], capture_output=True, text=True, timeout=300)
row = proc.stdout.splitlines()[-1].split() if proc.returncode == 0 and proc.stdout else []
check(len(row) == 14 and row[7] == "0/50" and row[8] == "0/50" and row[10] == "0/50",
      f"factors of 1 named as slow: {row}")

# 256 nodes under 8 leaves of 32, one leaf's uplink of 4 at half rate: that leaf, and only it,
# is named for its uplinks, and no node (the model knows which leaf it made bad).
proc = subprocess.run([args.sim, "--nodes", "256", "--checks", "20"], capture_output=True,
                      text=True, timeout=300)
row = proc.stdout.splitlines()[-1].split() if proc.returncode == 0 and proc.stdout else []
check(len(row) == 14 and row[9] != "-" and rate(row[9]) >= 0.9 and rate(row[6]) == 0
      and int(row[5]) <= 40,
      f"256 nodes, a bad uplink: {row}")

# One uplink a leaf: every pair leaving the bad leaf is slow, so its nodes are slow in their
# pairs and ok alone; they are the leaf's uplinks, not 32 nodes to drain.
proc = subprocess.run([args.sim, "--nodes", "256", "--checks", "20", "--uplinks", "1"],
                      capture_output=True, text=True, timeout=300)
row = proc.stdout.splitlines()[-1].split() if proc.returncode == 0 and proc.stdout else []
check(len(row) == 14 and row[9] != "-" and rate(row[9]) >= 0.9, f"256 nodes, one uplink: {row}")

for argv, words in ((["--launch-sd", "0"], "--launch-sd 0: allowed: a finite number above 0"),
                    (["--node-sd", "-0.1"], "--node-sd -0.1: allowed: a finite number above 0"),
                    (["--alone-launch-sd", "nan"], "--alone-launch-sd nan: allowed: a finite"),
                    (["--launch-seconds", "nan"], "--launch-seconds nan: allowed"),
                    (["--nodes", "3"], "--nodes 3: allowed: 4 or more"),
                    (["--leaf-size", "0"], "--leaf-size 0, --uplinks 4: allowed: 1 or more"),
                    (["--passes", "1"], "--passes 1: 2 or more"),
                    (["--slow-factor", "0.5"], "--slow-factor 0.5: allowed: a time factor of 1"),
                    (["--nodes", "16", "--slow-nodes", "16"], "--slow-nodes 16: more slow nodes")):
    proc = subprocess.run([args.sim, *argv], capture_output=True, text=True, timeout=60)
    lines = proc.stderr.strip().splitlines()
    check(proc.returncode == 2 and len(lines) == 1 and words in lines[0] and not proc.stdout,
          f"{argv}: exit {proc.returncode}, stderr {proc.stderr!r}, stdout {proc.stdout[:200]!r}")

finish("health_sim")
