"""A placement sweep on a two-"node" cluster of network namespaces on this machine (2 nodes x 2
ranks): ranks land on both nodes as mapped, every point completes, and the report shows what
crossing between nodes costs. Skipped (77) where namespaces cannot be created (not root)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sweep"))
import sweep_harness as h  # noqa: E402
from sweep_harness import check  # noqa: E402

import netns  # noqa: E402

args = h.parse_args()
cluster = netns.CLUSTER
up = subprocess.run([cluster, "up", "2", "200mbit"], capture_output=True, text=True)
if up.returncode != 0:
    print(f"netns_cluster: skipped, cannot create network namespaces here: {up.stderr.strip()}")
    subprocess.run([cluster, "down", "2"], capture_output=True)
    sys.exit(77)
try:
    work = h.workdir()
    spec = h.write_spec(work, "name: netns-placement\n" + netns.launch_keys(
        ["ct-node1", "ct-node2"], oversubscribe=False) + """point_timeout_seconds: 120
benchmark: {collectives: pingpong, min_bytes: 4K, max_bytes: 256K, step_factor: 4, samples: 8,
            iters: 10}
axes:
  np: 4
  ranks_per_node: 2
  rank_by: [node, slot]
""")
    results = os.path.join(work, "results")
    code, out, err = h.run_sweep(args, spec, "--results", results, limit_seconds=300)
    check(code == 0, f"sweep exit {code}: {err[-1500:]}")
    store = h.the_store(results)
    m = h.manifest(store)
    check(all(l["status"] == "done" for l in m["launches"]), "not every point finished")
    latency = {}
    for point in m["points"]:
        rank_by = point["settings"]["rank_by"]
        path = os.path.join(store, "points", point["id"], "round-1.jsonl")
        records = [json.loads(l) for l in open(path)]
        hosts = [p["host"] for p in records[0]["context"]["placement"]]
        check(sorted(set(hosts)) == ["ct-node1", "ct-node2"], f"{rank_by}: ranks on {hosts}")
        check(hosts.count("ct-node1") == 2, f"{rank_by}: {hosts}")
        # pingpong pairs rank r with r + n/2: by slot they sit on different nodes, by node on one.
        same_node = hosts[0] == hosts[2]
        check(same_node == (rank_by == "node"), f"{rank_by}: pair (0, 2) on {hosts[0]}, {hosts[2]}")
        latency[rank_by] = {r["bytes"]: sorted(r["samples_seconds"])[len(r["samples_seconds"]) // 2]
                            for r in records if r["skipped"] is None}
    code, out, err = h.run_sweep(args, "--resume", store)  # nothing left to run
    check(code == 0, "resume of a finished store")
    report = subprocess.run([args.colltune, "report", store], capture_output=True, text=True)
    check(report.returncode == 0, f"report: {report.stderr}")
    md = open(os.path.join(store, "report.md")).read()
    check("rank\\_by=node" in md and "rank\\_by=slot" in md, "the report lacks a placement")
    check(latency.get("node") and set(latency["node"]) == set(latency.get("slot", {})),
          f"pingpong sizes measured: {latency}")
    for size in sorted(latency.get("node", {})):
        print(f"pingpong {size} B: between nodes {latency['slot'][size] * 1e6:.1f} us, "
              f"within a node {latency['node'][size] * 1e6:.1f} us")
        # Crossing the shaped 200 mbit TCP link costs more than shared memory within a node
        # (256 KiB alone needs 10.5 ms on the wire): a placement or a pairing gone wrong, or
        # labels swapped, would show otherwise.
        check(latency["slot"][size] > latency["node"][size],
              f"{size} B: between nodes {latency['slot'][size]} s is not above within a node "
              f"{latency['node'][size]} s")
finally:
    subprocess.run([cluster, "down", "2"], capture_output=True)
h.finish("netns_cluster")
