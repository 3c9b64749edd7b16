"""The namespace cluster (scripts/netns-cluster.sh) as the tests and benchmarks use it: its
scripts, the spec lines that launch on its nodes, its links' rate, and its nodes' ranks."""
import os
import signal
import subprocess
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLUSTER = os.path.join(REPO, "scripts", "netns-cluster.sh")
AGENT = os.path.join(REPO, "scripts", "netns-agent.sh")


def launch_keys(hosts, oversubscribe=True):
    """A spec's hosts and launcher_args: Open MPI reaches each namespace through the agent and
    keeps to the cluster's 198.18.0.0/24 links; yielding lets oversubscribed ranks share cores."""
    extra = ", --oversubscribe" if oversubscribe else ""
    return f"""hosts: [{", ".join(hosts)}]
launcher_args: [--mca, plm_rsh_agent, {AGENT}, --mca, btl, "tcp,self,vader",
                --mca, btl_tcp_if_include, 198.18.0.0/24, --mca, oob_tcp_if_include, 198.18.0.0/24,
                --mca, mpi_yield_when_idle, 1{extra}]
"""


def shape(node, rate):
    """Node `node`'s link at `rate` (a tc rate, "500mbit") both ways."""
    for command in (["tc", "qdisc", "replace", "dev", f"ctv{node}"],
                    ["ip", "netns", "exec", f"ct-node{node}", "tc", "qdisc", "replace", "dev",
                     "eth0"]):
        subprocess.run(command + ["root", "tbf", "rate", rate, "burst", "256kb", "latency",
                                  "100ms"], check=True)


def stop_ranks(host, colltune):
    """SIGSTOPs every `colltune run` rank in namespace `host`; how many it stopped. A rank caught
    exiting (its launch done) never shows as stopped and is not counted, so the caller tries
    again on the next launch's ranks: counting it let a check run on with nothing stopped."""
    stopped = 0
    for pid in subprocess.run(["ip", "netns", "pids", host], capture_output=True,
                              text=True).stdout.split():
        try:
            command = open(f"/proc/{pid}/cmdline").read().split("\0")
        except OSError:
            continue
        if command[:1] == [colltune] and "run" in command:
            try:
                os.kill(int(pid), signal.SIGSTOP)
            except ProcessLookupError:
                continue
            stopped += is_stopped(pid)
    return stopped


def is_stopped(pid, seconds=0.5):
    """Whether process `pid` reaches the stopped state within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            # The state follows the command name, which is in parentheses and may hold spaces.
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state in ("T", "t"):
            return True
        if state in ("Z", "X"):
            return False
        time.sleep(0.01)
    return False


def measuring(results):
    """Whether a launch under `results` has written a record: its ranks are past start-up and
    their watchdog is armed."""
    for root, _, files in os.walk(results):
        for f in files:
            if f.endswith(".jsonl.partial") and os.path.getsize(os.path.join(root, f)) > 0:
                return True
    return False


def make_quota(node):
    """A CPU cgroup holding `node` to 20% of one CPU (the agent puts the node's daemon, and so its
    ranks, in it); its path, or None where none can be made. Remove it with os.rmdir."""
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
