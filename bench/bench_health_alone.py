#!/usr/bin/env python3
"""colltune health's stage 1 measured two ways on the namespace cluster (4 nodes, root): every
node at once in one launch (colltune run --split host, health's default) and one node after
another (a launch each, --alone-launch per-node), with health's own stage-1 arguments, launches
of the two ways interleaved. Prints per metric the fleet's median figure each way and their
ratio, the launch-to-launch spread within a node (sd of log medians, which sets how small a
slowdown stage 1 can name), and the wall time of one pass each way. The cluster's nodes share
this host's cores, so what it shows is what at once costs where nodes are not separate machines;
on a real cluster a node's own memory and cores are its own. A benchmark, not a test."""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--colltune", required=True)
parser.add_argument("--rounds", type=int, default=5, help="launches of each way (default 5)")
parser.add_argument("--node-ranks", type=int, default=2)
parser.add_argument("--large", default="262144")
args = parser.parse_args()
colltune = os.path.abspath(args.colltune)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "topo"))
import netns  # noqa: E402

hosts = [f"ct-node{i}" for i in range(1, 5)]
work = tempfile.mkdtemp(prefix="colltune-bench-health-alone-")
launcher = ["mpirun", "--allow-run-as-root", "--mca", "plm_rsh_agent", netns.AGENT, "--mca", "btl",
            "tcp,self,vader", "--mca", "btl_tcp_if_include", "198.18.0.0/24", "--mca",
            "oob_tcp_if_include", "198.18.0.0/24", "--mca", "mpi_yield_when_idle", "1",
            "--oversubscribe"]
# health's stage-1 arguments (src/health/health_args.cpp, HealthStage::kAlone, small 8 B).
factor = str(int(args.large) // 8)
stage_args = ["--coll", "allreduce,alltoall", "-b", "8", "-e", args.large, "-f", factor,
              "--in-place", "never", "--copy-ceiling", "-n", "2", "-w", "1", "--repetitions", "5",
              "--rank-samples", "--timeout", "20"]


def launch(on_hosts, split, path):
    placement = ",".join(f"{h}:{args.node_ranks}" for h in on_hosts)
    argv = launcher + ["-H", placement, "-np", str(args.node_ranks * len(on_hosts)), colltune,
                       "run", *stage_args, "--json", path] + (["--split", "host"] if split else [])
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    out = {}  # (host, metric) -> median seconds of the host's own slowest rank
    for line in open(path):
        r = json.loads(line)
        if r.get("skipped") or not r.get("rank_samples_seconds"):
            continue
        ranks = [p["host"] for p in r["context"]["placement"]]
        metric = r["collective"] + (" latency" if r["bytes"] <= 8 else " bw")
        for host in set(ranks):
            mine = [s for s, h in zip(r["rank_samples_seconds"], ranks) if h == host]
            out[(host, metric)] = statistics.median(max(col) for col in zip(*mine))
        for c in r["context"].get("copy_ceilings", []):
            if c["kind"] == "host_memcpy" and c["gbps"] > 0:
                out[(c["host"], "memcpy")] = max(out.get((c["host"], "memcpy"), 0), 1 / c["gbps"])
    return out


up = subprocess.run([netns.CLUSTER, "up", "4", "1gbit"], capture_output=True, text=True)
if up.returncode != 0:
    sys.exit(f"cannot create the namespace cluster: {up.stderr.strip()}")
figures = {"at once": {}, "one after another": {}}
seconds = {"at once": [], "one after another": []}
for k in range(args.rounds):
    for way in (("at once", "one after another") if k % 2 == 0 else
                ("one after another", "at once")):
        started = time.monotonic()
        if way == "at once":
            got = launch(hosts, True, os.path.join(work, f"once-{k}.jsonl"))
        else:
            got = {}
            for h in hosts:
                got.update(launch([h], False, os.path.join(work, f"each-{k}-{h}.jsonl")))
        seconds[way].append(time.monotonic() - started)
        for key, value in got.items():
            figures[way].setdefault(key, []).append(value)

metrics = sorted({m for (_, m) in figures["at once"]})
print(f"stage 1 on {len(hosts)} namespace nodes, {args.node_ranks} ranks each, {args.rounds} "
      f"launches each way, interleaved")
print(f"{'metric':<20} {'at once us':>11} {'each us':>11} {'ratio':>6} {'spread at once':>15} "
      f"{'spread each':>12}")
for m in metrics:
    row = []
    for way in ("at once", "one after another"):
        per_node = [figures[way][(h, m)] for h in hosts if (h, m) in figures[way]]
        fleet = statistics.median(statistics.median(v) for v in per_node)
        spread = statistics.mean(statistics.stdev(math.log(x) for x in v) for v in per_node
                                 if len(v) >= 2)
        row.append((fleet, spread))
    print(f"{m:<20} {row[0][0] * 1e6:>11.2f} {row[1][0] * 1e6:>11.2f} "
          f"{row[0][0] / row[1][0]:>6.2f} {row[0][1]:>15.3f} {row[1][1]:>12.3f}")
print(f"wall time of one pass: at once {statistics.median(seconds['at once']):.2f} s, one after "
      f"another {statistics.median(seconds['one after another']):.2f} s")
