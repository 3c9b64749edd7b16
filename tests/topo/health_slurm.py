"""colltune health inside a Slurm allocation (`salloc -N 2 colltune health SPEC`) on the two-node
Slurm of the namespace cluster (scripts/slurm-local.sh start DIR 2): the nodes come from the
allocation, every stage is an srun on its nodes, both nodes are judged ok (exit 0); and with
--hosts in another order than the allocation's, srun keeps that order (--distribution=arbitrary),
so the planned pairs are the measured ones. Skipped where namespaces or Slurm cannot start."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sweep"))
import sweep_harness as h  # noqa: E402
from sweep_harness import check  # noqa: E402

args = h.parse_args()
work = h.workdir()
scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
cluster, slurm = os.path.join(scripts, "netns-cluster.sh"), os.path.join(scripts, "slurm-local.sh")
slurm_dir = os.path.join(work, "slurm")
up = subprocess.run([cluster, "up", "2", "1gbit"], capture_output=True, text=True)
if up.returncode != 0:
    subprocess.run([cluster, "down", "2"], capture_output=True)
    h.skip("health_slurm", f"cannot create network namespaces here: {up.stderr.strip()}")
try:
    start = subprocess.run([slurm, "start", slurm_dir, "2"], capture_output=True, text=True,
                           timeout=60)
    if start.returncode == 77:
        h.skip("health_slurm", start.stdout.strip() or start.stderr.strip())
    check(start.returncode == 0, f"slurm-local start: exit {start.returncode}: {start.stdout}")
    env = dict(h.mpi_env(), SLURM_CONF=os.path.join(slurm_dir, "slurm.conf"))
    spec = h.write_spec(work, """name: health-slurm
launcher: srun
env: {OMPI_MCA_btl: "tcp,self,vader", OMPI_MCA_btl_tcp_if_include: 198.18.0.0/24,
      OMPI_MCA_oob_tcp_if_include: 198.18.0.0/24, OMPI_MCA_mpi_yield_when_idle: 1}
""")
    # An allocation of one CPU a node (salloc's default) cannot hold stage 1's two ranks a node:
    # refused before any launch, naming the allocation, not a failed node per srun.
    results = os.path.join(work, "results-one-cpu")
    proc = subprocess.run(["salloc", "-N", "2", args.colltune, "health", spec, "--results",
                           results, "--launch-timeout", "60"],
                          env=env, capture_output=True, text=True, timeout=600)
    check(proc.returncode == 2 and "--node-ranks: 2 ranks a node" in proc.stderr
          and "SLURM_JOB_CPUS_PER_NODE=1(x2)" in proc.stderr and not os.path.exists(results),
          f"one CPU a node: exit {proc.returncode}: {proc.stderr[-800:]}")
    for extra, order in [([], ["ct-node1", "ct-node2"]),
                         (["--hosts", "ct-node2,ct-node1"], ["ct-node2", "ct-node1"])]:
        results = os.path.join(work, "results-" + "-".join(order))
        out_json = os.path.join(work, "-".join(order) + ".json")
        proc = subprocess.run(["salloc", "-N", "2", "--ntasks-per-node", "2", args.colltune,
                               "health", spec, "--results", results, "--json", out_json, "--launch-timeout", "60", *extra],
                              env=env, capture_output=True, text=True, timeout=600)
        check(proc.returncode == 0, f"{extra}: exit {proc.returncode}: {proc.stdout[-1500:]}"
              f"{proc.stderr[-1500:]}")
        if proc.returncode != 0:
            continue
        report = json.load(open(out_json))
        check([n["node"] for n in report["nodes"]] == order, f"nodes {report['nodes']}")
        check(all(n["verdict"] == "ok" for n in report["nodes"]), f"{report['nodes']}")
        store = h.the_store(results)
        m = h.manifest(store)
        pairs = [l for l in m["launches"] if "pairs" in next(
            p["label"] for p in m["points"] if p["id"] == l["point"])]
        check(pairs and all(l["argv"][0] == "srun" and "--distribution=arbitrary" in l["argv"]
                            for l in pairs), f"not srun with arbitrary: {pairs[:1]}")
        first = pairs[0]
        path = os.path.join(store, "points", first["point"], f"round-{first['round']}.jsonl")
        record = json.loads(open(path).readline())
        hosts = [p["host"] for p in record["context"]["placement"]]
        check(hosts == order, f"{extra}: ranks on {hosts}, planned {order}")
finally:
    subprocess.run([slurm, "stop", slurm_dir], timeout=60)
    subprocess.run([cluster, "down", "2"], capture_output=True)
h.finish("health_slurm")
