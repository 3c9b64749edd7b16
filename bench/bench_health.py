#!/usr/bin/env python3
"""colltune health's error rates on the namespace cluster (4 nodes, 1gbit links, root): healthy
checks (a node named is a false alarm), checks with one node's link throttled to half (tbf on its
veth, both ways; it should be named slow), checks with that node's ranks held to a fifth of one
CPU (a cgroup quota; it should be named slow), and checks where one node's ranks are SIGSTOPped
mid-check (it should be named failed, every other node still checked, within the budget). Prints
each check's wall time and verdicts, then the counts against the targets (healthy: at most 1 of
20 named; throttled and CPU-held: 19 of 20; stopped: 10 of 10). A benchmark, not a test: its
figures go in the notes. Defaults are the issue's 20/20/20/10; --healthy/--throttled/--cpu-held/
--stopped run fewer."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--colltune", required=True)
parser.add_argument("--healthy", type=int, default=20)
parser.add_argument("--throttled", type=int, default=20)
parser.add_argument("--stopped", type=int, default=10)
parser.add_argument("--cpu-held", type=int, default=20,
                    help="checks with the slow node held to a fifth of a CPU (a cgroup quota)")
parser.add_argument("--alone-launch", help="health's --alone-launch (default: health's own)")
parser.add_argument("--slow-node", type=int, default=3)
parser.add_argument("--budget", type=int, default=600)
args = parser.parse_args()
colltune = os.path.abspath(args.colltune)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "topo"))
import netns  # noqa: E402

hosts = [f"ct-node{i}" for i in range(1, 5)]
work = tempfile.mkdtemp(prefix="colltune-bench-health-")
spec = os.path.join(work, "spec.yaml")
with open(spec, "w") as f:
    f.write("name: bench-health\n" + netns.launch_keys(hosts))



def check(kind, k, stop_node=None):
    results = os.path.join(work, f"{kind}-{k}")
    out_json = os.path.join(work, f"{kind}-{k}.json")
    started = time.monotonic()
    extra = ["--alone-launch", args.alone_launch] if args.alone_launch else []
    proc = subprocess.Popen([colltune, "health", spec, "--results", results, "--json", out_json,
                             "--budget", str(args.budget), *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if stop_node:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not netns.measuring(results):
            time.sleep(0.1)
        while time.monotonic() < deadline and netns.stop_ranks(stop_node, colltune) == 0:
            time.sleep(0.2)
        # A hung node stays hung: its ranks in every later launch are stopped too (the
        # confirmation launches it again), as tests/topo/health_netns.py does.
        done = threading.Event()
        freezer = threading.Thread(target=lambda: [netns.stop_ranks(stop_node, colltune)
                                                   for _ in iter(lambda: done.wait(0.2), True)],
                                   daemon=True)
        freezer.start()
    proc.communicate()
    if stop_node:
        done.set()
        freezer.join()
    seconds = time.monotonic() - started
    try:
        report = json.load(open(out_json))
    except (OSError, ValueError):
        report = {"nodes": []}
    verdicts = {n["node"]: n["verdict"] for n in report["nodes"]}
    for n in report["nodes"]:
        if n.get("network_path"):
            network_paths[kind] = network_paths.get(kind, 0) + 1
    for metric, sd in report.get("spread_log_sd", {}).items():
        fit.setdefault(metric, {"launch": [], "between": []})["launch"].append(sd)
        fit[metric]["between"].append(report.get("between_log_sd", {}).get(metric, 0))
    checked = {n["node"]: n["judged_pairs"] for n in report["nodes"]}
    print(f"{kind} {k}: exit {proc.returncode}, {seconds:.1f} s, "
          + " ".join(f"{h}={verdicts.get(h, '?')}" for h in hosts), flush=True)
    return proc.returncode, seconds, verdicts, checked


if subprocess.run([netns.CLUSTER, "up", "4", "1gbit"]).returncode != 0:
    sys.exit("bench-health: cannot create the namespace cluster (root needed)")
slow = f"ct-node{args.slow_node}"
tallies = {}
fit = {}  # metric -> the launch noise and the spread between nodes each check measured
network_paths = {}  # kind -> nodes named for their network path (slow in pairs, ok alone)
NAMED = ("slow", "failed", "unreachable")  # "not confirmed" is shown, not named


def slow_node_found(kind, count):
    """`count` checks of `kind` with the slow node made slow: those naming it slow, and only it."""
    found = 0
    for k in range(1, count + 1):
        _, _, v, _ = check(kind, k)
        found += v.get(slow) == "slow" and all(v.get(h) not in NAMED for h in hosts if h != slow)
    tallies[kind] = (found, count)


try:
    named = 0
    for k in range(1, args.healthy + 1):
        code, s, v, _ = check("healthy", k)
        named += any(x in NAMED for x in v.values()) or code != 0
    tallies["healthy"] = (named, args.healthy)
    netns.shape(args.slow_node, "500mbit")
    slow_node_found("throttled", args.throttled)
    netns.shape(args.slow_node, "1gbit")
    group = netns.make_quota(slow) if args.cpu_held else None
    if group:
        try:
            slow_node_found("cpu-held", args.cpu_held)
        finally:
            os.rmdir(group)
    elif args.cpu_held:
        print("cpu-held: skipped, no CPU cgroup can be made here")
    failed = 0
    for k in range(1, args.stopped + 1):
        code, s, v, c = check("stopped", k, stop_node="ct-node2")
        failed += (v.get("ct-node2") == "failed" and s < args.budget and
                   all(v.get(h) not in NAMED and c.get(h, 0) >= 2 for h in hosts if h != "ct-node2"))
    tallies["stopped"] = (failed, args.stopped)
finally:
    subprocess.run([netns.CLUSTER, "down", "4"], capture_output=True)
print()
for metric, f in sorted(fit.items()):
    med = lambda v: sorted(v)[len(v) // 2]
    print(f"fit {metric}: launch-to-launch sd {med(f['launch']):.4f}, between nodes sd "
          f"{med(f['between']):.4f} (log; median over {len(f['launch'])} checks; "
          f"bench/health_sim --launch-sd / --node-sd)")
for kind, what, target in (
        ("healthy", "healthy checks naming any node", "at most 1 of 20"),
        ("throttled", f"throttled {slow} named slow (and only it)", "19 of 20"),
        ("cpu-held", f"{slow} held to a fifth of a CPU named slow (and only it)", "19 of 20"),
        ("stopped", f"stopped ct-node2 named failed, the rest checked, within {args.budget} s",
         "10 of 10")):
    if kind in tallies:
        print(f"{what}: {tallies[kind][0]} of {tallies[kind][1]} (target: {target}); named for "
              f"a network path: {network_paths.get(kind, 0)}")
