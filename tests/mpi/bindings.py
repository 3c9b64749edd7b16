"""Real runs with --bind-to core and --bind-to none: the recorded bindings differ as requested,
and a binding that contradicts the request would be named (checked from the records). Both
compare two settings (--interleave): unbound, every rank is named as floating, on the console and
in the record, since a comparison made in one launch then need not hold in the next; bound, none
is."""
import json
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
placements = {}
for policy in ("core", "none"):
    out = os.path.join(harness.workdir(), f"{policy}.jsonl")
    race, race_env = harness.algorithm_race()
    argv = harness.bind_argv(args.np, policy) + [
        args.colltune, "run", "-b", "8", "-e", "8", "--repetitions", "2", "--coll", "allreduce",
        "--interleave", race, "--json", out]
    env = dict(harness.mpi_env(), **race_env)
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"--bind-to {policy}: exit {proc.returncode}: {proc.stderr[-800:]}")
    record = json.loads(open(out).readline())
    placements[policy] = record["context"]["placement"]
    floating = [w for w in record["context"].get("warnings", []) if "float (not bound" in w]
    printed = [line for line in proc.stdout.splitlines()
               if line.startswith("# warning:") and "float (not bound" in line]
    if policy == "none":
        every_rank = ",".join(str(r) for r in range(args.np))
        check(len(floating) == 1 and floating[0].startswith(f"rank(s) {every_rank} float"),
              f"--bind-to none: the floating ranks are not all named: {floating}")
        check(len(printed) == 1, f"--bind-to none: no floating-rank warning on the console:\n"
              f"{proc.stdout[:1500]}")
    else:
        check(not floating and not printed, f"--bind-to core: ranks named floating: {floating}")
    for p in placements[policy]:
        for field in ("cpus", "cores", "numa", "host_pus"):
            check(p.get(field) not in (None, ""), f"--bind-to {policy}: rank {p['rank']} lacks {field}")

pus = placements["none"][0]["host_pus"]
for p in placements["none"]:
    check(p["cpus"] == f"0-{pus - 1}" if pus > 1 else p["cpus"] == "0",
          f"--bind-to none: rank {p['rank']} bound to {p['cpus']} of {pus} PUs")
for p in placements["core"]:
    check(len(p["cores"].split(",")) == 1 and "-" not in p["cores"],
          f"--bind-to core: rank {p['rank']} may run on cores {p['cores']}")
check([p["cpus"] for p in placements["core"]] != [p["cpus"] for p in placements["none"]],
      "the bindings do not differ between --bind-to core and none")
if args.np <= pus:
    cores = [p["cores"] for p in placements["core"]]
    check(len(set(cores)) == len(cores), f"--bind-to core put ranks on the same core: {cores}")
harness.finish("bindings")
