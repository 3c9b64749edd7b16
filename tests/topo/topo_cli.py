"""colltune topo on this machine and on a fixture: text and JSON, what is present and what is
absent, and measured ceilings."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sweep"))
import sweep_harness as h  # noqa: E402
from sweep_harness import check  # noqa: E402

args = h.parse_args()
here = os.path.dirname(os.path.abspath(__file__))


def topo(*extra, env=None):
    proc = subprocess.run([args.colltune, "topo", *extra], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), timeout=120)
    check(proc.returncode == 0, f"topo {extra}: exit {proc.returncode} {proc.stderr}")
    return proc.stdout


machine = json.loads(topo("--json", "--ceilings"))
check(machine["pus"] >= 1 and machine["cores"] >= 1 and len(machine["numa_nodes"]) >= 1,
      f"machine: {machine}")
host_ceilings = [c for c in machine["ceilings"] if c["kind"] == "host_memcpy"]
check(len(host_ceilings) == len(machine["numa_nodes"]) and all(c["gbps"] > 0 for c in host_ceilings),
      f"ceilings: {machine['ceilings']}")
text = topo()
if not machine["gpus"]:
    check("GPUs (PCI): none found" in text, "no GPU, and the text does not say so")
if not machine["ib_ports"]:
    check("InfiniBand ports: none" in text, "no InfiniBand, and the text does not say so")
if not machine["gpu_links"]["available"]:
    check("GPU links: none (" in text and machine["gpu_links"]["why"], "no reason for missing GPU links")

fixture = json.loads(topo("--json", env={"HWLOC_XMLFILE": os.path.join(here, "two-socket-ib.xml")}))
check(fixture["packages"] == 2 and fixture["pus"] == 8, f"fixture: {fixture['packages']} {fixture['pus']}")
check([(n["names"], n["numa"]) for n in fixture["nics"]] == [("mlx5_0", 1)], f"nics {fixture['nics']}")
check([g["numa"] for g in fixture["gpus"]] == [1], f"gpus {fixture['gpus']}")
h.finish("topo_cli")
