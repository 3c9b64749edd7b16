"""colltune health's stage 1 on the 4-node namespace cluster: ct-node3's processes held to a
fifth of one CPU by a real kernel CPU quota (a cgroup the namespace agent puts the node's daemon
in) are named slow, and slow alone, with stage 1's evidence (its allreduce, alltoall or memcpy
at least 15% slower than the fleet, p < 0.001 over its launches), while the other three are ok
alone. Skipped (77) where namespaces or a CPU cgroup cannot be made (not root, no cpu
controller)."""
import glob
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

group = netns.make_quota("ct-node3")
if group is None:
    print("health_netns_cpu: skipped, no CPU cgroup can be made here")
    sys.exit(77)
up = subprocess.run([cluster, "up", "4", "1gbit"], capture_output=True, text=True)
try:
    if up.returncode != 0:
        print(f"health_netns_cpu: skipped, cannot create network namespaces: {up.stderr.strip()}")
        sys.exit(77)
    result = os.path.join(work, "cpu.json")
    # One node after another: the namespace nodes share this host's 2 cores, so measured at once
    # (health's default) every node's latency is 30x and its launch spread up to 2x what it is
    # alone (bench/bench-health-alone.sh), and a CPU quota on one node drowns in that; on a real
    # cluster each node's cores are its own. Three passes: the held node's memcpy swings from
    # launch to launch (16x the fleet's, launch sd 0.21 in log), and with two passes its p once
    # ended at 0.0012 against the rule's 0.001, undecided.
    proc = subprocess.run([args.colltune, "health", spec, "--results", os.path.join(work, "r"),
                           "--launch-timeout", "60", "--large", "256K", "--json", result,
                           "--alone-launch", "per-node", "--passes", "3"],
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

    # Every launch dies alike at once (the spec's colltune is not there): stage 1's launch of
    # every node at once fails, then each node alone, and the check stops after 3 alike failures
    # in a row within 2 s each (a slower one restarts the count), with the cause, exit 3, and
    # drains no node, for no node is to blame; where slow failures kept it going, every launch
    # failing with that one cause says the same at the end. Open MPI takes 0.1-0.3 s to fail such a launch
    # here, but now and then 5 s (seen in CI and here), so where the stop falls follows from the
    # launches' own times, read from the store's manifest, by the documented rule.
    broken = h.write_spec(work, open(spec).read().replace("name: health-netns-cpu",
                                                          "name: broken\ncolltune: /nonexistent"),
                          "broken.yaml")
    drain = os.path.join(work, "drain")
    proc = subprocess.run([args.colltune, "health", broken, "--results", os.path.join(work, "b"),
                           "--drain", drain], env=h.mpi_env(), capture_output=True, text=True,
                          timeout=300)
    stores = glob.glob(os.path.join(work, "b", "health-*", "manifest.json"))
    check(len(stores) == 1, f"broken: stores {stores}")
    seconds = [la["seconds"] for la in json.load(open(stores[0]))["launches"]]
    in_a_row, stop_at = 0, None
    for i, took in enumerate(seconds):
        in_a_row = in_a_row + 1 if took <= 2 else 0
        if in_a_row == 3:
            stop_at = i + 1
            break
    said = f"broken: exit {proc.returncode}, launch times {seconds}: {proc.stdout[:400]} " \
           f"{proc.stderr[-600:]}"
    if stop_at is not None:
        check(proc.returncode == 3 and proc.stdout.startswith(
            "colltune health: could not check: 3 launches in a row, before any succeeded, all "
            "failed within 2 s with: ") and len(seconds) == stop_at
              and proc.stderr.count("] alone ") == stop_at and open(drain).read() == "", said)
    else:  # no 3 fast failures in a row: every node is launched, and every launch failing
        # alike is then the one cause, not 4 failed nodes to drain
        check(proc.returncode == 3 and proc.stdout.startswith(
            f"colltune health: could not check: all {len(seconds)} launches failed, none "
            "succeeded, every one with: ") and len(seconds) == 5
              and "need attention" not in proc.stdout and open(drain).read() == "", said)

    # Every launch dies alike but slowly (a stand-in colltune that fails after 2.5 s, as a
    # missing library or a full disk would on every node): fail-fast never stops the check, all
    # 4 nodes are launched and fail, and the one cause they share is said instead of 4 nodes
    # named failed and drained.
    slow_fail = os.path.join(work, "slow-fail.sh")
    with open(slow_fail, "w") as f:
        f.write("#!/bin/sh\nsleep 2.5\necho 'colltune: error: a stand-in that always fails'\n"
                "exit 1\n")
    os.chmod(slow_fail, 0o755)
    slow = h.write_spec(work, open(spec).read().replace(
        "name: health-netns-cpu", f"name: slowfail\ncolltune: {slow_fail}"), "slowfail.yaml")
    proc = subprocess.run([args.colltune, "health", slow, "--results", os.path.join(work, "s"),
                           "--drain", drain], env=h.mpi_env(), capture_output=True, text=True,
                          timeout=300)
    stores = glob.glob(os.path.join(work, "s", "health-*", "manifest.json"))
    launches = json.load(open(stores[0]))["launches"] if len(stores) == 1 else []
    check(proc.returncode == 3 and len(launches) >= 5 and all(
        la["seconds"] > 2 for la in launches) and proc.stdout.startswith(
        f"colltune health: could not check: all {len(launches)} launches failed, none succeeded, "
        "every one with: colltune: error: a stand-in that always fails")
        and open(drain).read() == "",
        f"slow failures: exit {proc.returncode}, {len(launches)} launches: {proc.stdout[:500]} "
        f"{proc.stderr[-600:]}")
finally:
    subprocess.run([cluster, "down", "4"], capture_output=True)
    try:
        os.rmdir(group)
    except OSError as e:
        print(f"health_netns_cpu: could not remove {group}: {e}")
h.finish("health_netns_cpu")
