"""colltune run --split host on a two-"node" namespace cluster (2 nodes x 2 ranks): each node's
ranks measure as a communicator of their own, at once. The oracles are outside colltune: the
launcher's placement (2 ranks a node, so each communicator has 2 ranks and allreduce's bus factor
is 2(n-1)/n = 1), the data check (a sum over the wrong ranks reads wrong), and the reader taking
4 per-rank sample lists for 2-rank communicators. An uneven placement and a bad value are exit 2
with one line. Skipped (77) where namespaces cannot be created (not root)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sweep"))
import sweep_harness as h  # noqa: E402
from sweep_harness import check  # noqa: E402

import netns  # noqa: E402

args = h.parse_args()
launcher = ["mpirun", "--mca", "plm_rsh_agent", netns.AGENT, "--mca", "btl", "tcp,self,vader",
            "--mca", "btl_tcp_if_include", "198.18.0.0/24", "--mca", "oob_tcp_if_include",
            "198.18.0.0/24", "--mca", "mpi_yield_when_idle", "1", "--oversubscribe"]
run_args = ["run", "--coll", "allreduce,alltoall", "-b", "8", "-e", "64K", "-f", "8",
            "--in-place", "never", "-n", "5", "-w", "2", "--repetitions", "3", "--rank-samples",
            "--split", "host", "--timeout", "30"]


def run(placement, np, *extra):
    return subprocess.run(launcher + ["-H", placement, "-np", str(np), args.colltune, *run_args,
                                      *extra], env=h.mpi_env(), capture_output=True, text=True,
                          timeout=180)


proc = subprocess.run([args.colltune, "run", "--split", "nodes"], env=h.mpi_env(),
                      capture_output=True, text=True, timeout=60)
check(proc.returncode == 2 and "--split: 'nodes' is not allowed; allowed: none host" in proc.stderr,
      f"--split nodes: exit {proc.returncode}: {proc.stderr[-400:]}")

up = subprocess.run([netns.CLUSTER, "up", "2", "1gbit"], capture_output=True, text=True)
if up.returncode != 0:
    subprocess.run([netns.CLUSTER, "down", "2"], capture_output=True)
    h.skip("split_host", f"cannot create network namespaces here: {up.stderr.strip()}")
try:
    work = h.workdir()
    records = os.path.join(work, "split.jsonl")
    proc = run("ct-node1:2,ct-node2:2", 4, "--json", records)
    check(proc.returncode == 0, f"split run: exit {proc.returncode}: {proc.stderr[-1200:]}")
    check("split by host: 2 communicators of 2 ranks, measuring at once" in proc.stdout,
          f"the header: {proc.stdout[:800]}")
    rows = [json.loads(line) for line in open(records)] if os.path.exists(records) else []
    check(len(rows) == 10, f"{len(rows)} records, expected 2 collectives x 5 sizes (8 B-32 KiB)")
    for r in rows:
        hosts = [p["host"] for p in r["context"]["placement"]]
        check(r["nranks"] == 2 and r["wrong"] == 0 and len(r["rank_samples_seconds"]) == 4
              and hosts == ["ct-node1", "ct-node1", "ct-node2", "ct-node2"],
              f"{r['collective']} {r['bytes']} B: nranks {r['nranks']}, wrong {r['wrong']}, "
              f"{len(r['rank_samples_seconds'])} rank lists on {hosts}")
        if r["collective"] == "allreduce":
            check(abs(r["bus_factor"] - 1.0) < 1e-12, f"allreduce bus factor {r['bus_factor']}")
    report = subprocess.run([args.colltune, "report", records], capture_output=True, text=True,
                            timeout=60)
    check(report.returncode == 0, f"report of a split run: {report.stderr[-400:]}")

    proc = run("ct-node1:3,ct-node2:1", 4)
    check(proc.returncode == 2 and proc.stderr.count(
        "--split: host needs the same rank count on every host; this job has 1 to 3 ranks on its "
        "2 hosts") >= 1, f"uneven placement: exit {proc.returncode}: {proc.stderr[-800:]}")
finally:
    subprocess.run([netns.CLUSTER, "down", "2"], capture_output=True)
h.finish("split_host")
