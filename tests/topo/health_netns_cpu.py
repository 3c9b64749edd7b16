"""colltune health's stage 1 on the 4-node namespace cluster: ct-node3's processes held to a
fifth of one CPU by a real kernel CPU quota (a cgroup the namespace agent puts the node's daemon
in) are named slow, and slow alone, with stage 1's evidence (its allreduce, alltoall or memcpy
at least 15% slower than the fleet, p < 0.001 over its launches), while the other three are ok
alone. Skipped (77) where namespaces or a CPU cgroup cannot be made (not root, no cpu
controller)."""
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
hosts = ["ct-node1", "ct-node2", "ct-node3", "ct-node4"]
work = h.workdir()
spec = h.write_spec(work, "name: health-netns-cpu\n" + netns.launch_keys(hosts))


def make_quota(node):
    """A CPU cgroup holding `node` to 20% of one CPU; its path, or None where none can be made."""
    for group, files in [(f"/sys/fs/cgroup/cpu/colltune-{node}",
                          [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", "20000")]),
                         (f"/sys/fs/cgroup/colltune-{node}", [("cpu.max", "20000 100000")])]:
        if not os.path.isdir(os.path.dirname(group)):
            continue
        try:
            os.makedirs(group, exist_ok=True)
            for name, value in files:
                with open(os.path.join(group, name), "w") as f:
                    f.write(value)
            return group
        except OSError:
            if os.path.isdir(group):
                os.rmdir(group)
    return None


group = make_quota("ct-node3")
if group is None:
    print("health_netns_cpu: skipped, no CPU cgroup can be made here")
    sys.exit(77)
up = subprocess.run([cluster, "up", "4", "1gbit"], capture_output=True, text=True)
try:
    if up.returncode != 0:
        print(f"health_netns_cpu: skipped, cannot create network namespaces: {up.stderr.strip()}")
        sys.exit(77)
    result = os.path.join(work, "cpu.json")
    proc = subprocess.run([args.colltune, "health", spec, "--results", os.path.join(work, "r"),
                           "--launch-timeout", "60", "--large", "256K", "--json", result],
                          env=h.mpi_env(),
                          capture_output=True, text=True, timeout=800)
    print(proc.stdout)
    check(proc.returncode == 1, f"exit {proc.returncode}, expected 1: {proc.stderr[-1500:]}")
    check("ct-node3 slow" in proc.stdout, f"answer: {proc.stdout[:600]}")
    nodes = {n["node"]: n for n in json.load(open(result))["nodes"]}
    slow = nodes["ct-node3"]
    check(slow["verdict"] == "slow", f"ct-node3: {slow}")
    alone = slow["alone"]
    check(alone is not None and alone["verdict"] == "slow" and alone["evidence"]["ratio"] <= 0.85
          and alone["evidence"]["p"] < 0.001 and alone["evidence"]["launches"] >= 2,
          f"ct-node3 alone: {alone}")
    for n in ("ct-node1", "ct-node2", "ct-node4"):
        check(nodes[n]["alone"]["verdict"] == "ok", f"{n} alone: {nodes[n]['alone']}")

    # Every launch dies alike at once (the spec's colltune is not there): the check stops after
    # 3 launches with the cause, exit 3, and drains no node, for no node is to blame.
    broken = h.write_spec(work, open(spec).read().replace("name: health-netns-cpu",
                                                          "name: broken\ncolltune: /nonexistent"),
                          "broken.yaml")
    drain = os.path.join(work, "drain")
    proc = subprocess.run([args.colltune, "health", broken, "--results", os.path.join(work, "b"),
                           "--drain", drain], env=h.mpi_env(), capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode == 3 and proc.stdout.startswith(
        "colltune health: could not check: the first 3 launches all failed within 2 s with: ")
          and proc.stderr.count("] alone ") == 3 and open(drain).read() == "",
          f"broken: exit {proc.returncode}: {proc.stdout[:400]} {proc.stderr[-600:]}")
finally:
    subprocess.run([cluster, "down", "4"], capture_output=True)
    try:
        os.rmdir(group)
    except OSError as e:
        print(f"health_netns_cpu: could not remove {group}: {e}")
h.finish("health_netns_cpu")
