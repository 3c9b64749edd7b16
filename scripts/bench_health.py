#!/usr/bin/env python3
"""colltune health's error rates on the namespace cluster (4 nodes, 1gbit links, root): healthy
checks (a node named is a false alarm), checks with one node's link throttled to half (tbf on its
veth, both ways; it should be named slow), and checks where one node's ranks are SIGSTOPped
mid-check (it should be named failed, every other node still checked, within the budget). Prints
each check's wall time and verdicts, then the counts against the targets (healthy: at most 1 of
20 named; throttled: 19 of 20; stopped: 10 of 10). A benchmark, not a test: its figures go in
the notes. Defaults are the issue's 20/20/10; --healthy/--throttled/--stopped run fewer."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--colltune", required=True)
parser.add_argument("--healthy", type=int, default=20)
parser.add_argument("--throttled", type=int, default=20)
parser.add_argument("--stopped", type=int, default=10)
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
    proc = subprocess.Popen([colltune, "health", spec, "--results", results, "--json", out_json,
                             "--budget", str(args.budget)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if stop_node:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not netns.measuring(results):
            time.sleep(0.1)
        while time.monotonic() < deadline and netns.stop_ranks(stop_node, colltune) == 0:
            time.sleep(0.2)
    proc.communicate()
    seconds = time.monotonic() - started
    try:
        report = json.load(open(out_json))
    except (OSError, ValueError):
        report = {"nodes": []}
    verdicts = {n["node"]: n["verdict"] for n in report["nodes"]}
    checked = {n["node"]: n["judged_pairs"] for n in report["nodes"]}
    print(f"{kind} {k}: exit {proc.returncode}, {seconds:.1f} s, "
          + " ".join(f"{h}={verdicts.get(h, '?')}" for h in hosts), flush=True)
    return proc.returncode, seconds, verdicts, checked


if subprocess.run([netns.CLUSTER, "up", "4", "1gbit"]).returncode != 0:
    sys.exit("bench-health: cannot create the namespace cluster (root needed)")
slow = f"ct-node{args.slow_node}"
tallies = {}
try:
    named = 0
    for k in range(1, args.healthy + 1):
        code, s, v, _ = check("healthy", k)
        named += any(x != "ok" for x in v.values()) or code != 0
    tallies["healthy"] = (named, args.healthy)
    netns.shape(args.slow_node, "500mbit")
    found = 0
    for k in range(1, args.throttled + 1):
        code, s, v, _ = check("throttled", k)
        found += v.get(slow) == "slow" and all(v.get(h) == "ok" for h in hosts if h != slow)
    tallies["throttled"] = (found, args.throttled)
    netns.shape(args.slow_node, "1gbit")
    failed = 0
    for k in range(1, args.stopped + 1):
        code, s, v, c = check("stopped", k, stop_node="ct-node2")
        failed += (v.get("ct-node2") == "failed" and s < args.budget and
                   all(v.get(h) == "ok" and c.get(h, 0) >= 2 for h in hosts if h != "ct-node2"))
    tallies["stopped"] = (failed, args.stopped)
finally:
    subprocess.run([netns.CLUSTER, "down", "4"], capture_output=True)
print()
if "healthy" in tallies:
    print(f"healthy checks naming any node: {tallies['healthy'][0]} of {tallies['healthy'][1]} "
          f"(target: at most 1 of 20)")
if "throttled" in tallies:
    print(f"throttled {slow} named slow (and only it): {tallies['throttled'][0]} of "
          f"{tallies['throttled'][1]} (target: 19 of 20)")
if "stopped" in tallies:
    print(f"stopped ct-node2 named failed, the rest checked, within {args.budget} s: "
          f"{tallies['stopped'][0]} of {tallies['stopped'][1]} (target: 10 of 10)")
