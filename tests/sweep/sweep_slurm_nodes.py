"""A sweep with `launcher: srun` across two Slurm nodes: one slurmd in each network namespace of
scripts/netns-cluster.sh (scripts/slurm-local.sh start DIR 2). The ranks land on the nodes srun's
--nodes and --ntasks-per-node ask for, Open MPI wires up across them through PMIx and TCP, and
every launch is recorded done. Skipped where namespaces or Slurm cannot start (no root)."""
import json
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
cluster, slurm = os.path.join(scripts, "netns-cluster.sh"), os.path.join(scripts, "slurm-local.sh")
slurm_dir = os.path.join(work, "slurm")
up = subprocess.run([cluster, "up", "2", "200mbit"], capture_output=True, text=True)
if up.returncode != 0:
    subprocess.run([cluster, "down", "2"], capture_output=True)
    h.skip("sweep_slurm_nodes", f"cannot create network namespaces here: {up.stderr.strip()}")
try:
    start = subprocess.run([slurm, "start", slurm_dir, "2"], capture_output=True, text=True,
                           timeout=60)
    if start.returncode == 77:
        h.skip("sweep_slurm_nodes", start.stdout.strip() or start.stderr.strip())
    check(start.returncode == 0, f"slurm-local start: exit {start.returncode}: {start.stdout}")
    os.environ["SLURM_CONF"] = os.path.join(slurm_dir, "slurm.conf")
    # TCP only on the cluster's bridge: the namespaces share no other network. No vader (shared
    # memory) either: the two "nodes" share one /tmp and /dev/shm, which real nodes do not, and
    # one run in 14 (2026-12-06) lost a rank there: "A system call failed during shared memory
    # initialization ... open(2) ... No such file or directory", then a segfault in Open MPI 4.1.4,
    # as step 2 started 20 ms after step 1 ended on the same node. This test is about placement.
    spec = h.write_spec(work, """name: slurm-nodes
launcher: srun
point_timeout_seconds: 120
env: {OMPI_MCA_btl: "tcp,self", OMPI_MCA_btl_tcp_if_include: 198.18.0.0/24,
      OMPI_MCA_oob_tcp_if_include: 198.18.0.0/24, OMPI_MCA_mpi_yield_when_idle: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 64, step_factor: 8, samples: 2,
            iters: 5}
axes:
  nodes: 2
  ranks_per_node: [1, 2]
""")
    results = os.path.join(work, "results")
    code, _, stderr = h.run_sweep(args, spec, "--results", results, limit_seconds=300)
    check(code == 0, f"srun sweep on two nodes: exit {code}: {stderr[-1500:]}")
    store = h.the_store(results) if code == 0 else None
    m = h.manifest(store) if store else {"launches": [], "points": []}
    check(len(m["launches"]) == 2 and all(l["status"] == "done" and l["exit_code"] == 0
                                          for l in m["launches"]),
          f"launches {[(l['status'], l['exit_code']) for l in m['launches']]}")
    for point in m["points"]:
        per_node = int(point["settings"]["ranks_per_node"])
        path = os.path.join(store, "points", point["id"], "round-1.jsonl")
        records = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
        check(len(records) == 4, f"{path}: {len(records)} records, 8 and 64 B x 2 expected")
        if not records:
            continue
        hosts = [p["host"] for p in records[0]["context"]["placement"]]
        # srun's block distribution: ranks 0..k-1 on the first node, the rest on the second.
        expected = ["ct-node1"] * per_node + ["ct-node2"] * per_node
        check(hosts == expected, f"ranks_per_node {per_node}: ranks on {hosts}, not {expected}")
        check(all(r["wrong"] == 0 for r in records),
              f"ranks_per_node {per_node}: wrong elements")
finally:
    subprocess.run([slurm, "stop", slurm_dir], timeout=60)
    subprocess.run([cluster, "down", "2"], capture_output=True)
h.finish("sweep_slurm_nodes")
