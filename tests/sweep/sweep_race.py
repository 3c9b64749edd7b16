"""A sweep that races across launches (`race: true`): a point its group clearly beats at every
size stops being launched after round 3, 4 or 5 (noise decides which; Student t over three
rounds needs a clear gap), and its later rounds are marked decided with the reason; the baseline runs every round; the sweep still exits 0, --resume leaves the decided
launches alone, the report counts them as not needed (not as failures); race: false runs every
round; a bad value is exit 2 naming the key. The loser is Open MPI over TCP loopback instead of
shared memory: several times slower at 8 B and 512 B on any machine (not at 32 KiB here, which
is why the sizes stop at 512 B)."""
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
SPEC = """
name: race
launcher_args: [--oversubscribe]
point_timeout_seconds: 60
repetitions: 6
race: {race}
benchmark: {{collectives: allreduce, min_bytes: 8, max_bytes: 512, step_factor: 64, iters: 20,
            samples: 5, in_place: never}}
axes:
  np: 2
  OMPI_MCA_btl: [null, "self,tcp"]
"""

spec = h.write_spec(work, SPEC.format(race="true"))
results = os.path.join(work, "raced")
code, stdout, stderr = h.run_sweep(args, spec, "--results", results)
check(code == 0, f"race: exit {code}: {stderr[-800:]}")
store = h.the_store(results)
m = h.manifest(store) if store else {"points": [], "launches": []}
tcp = [p["id"] for p in m["points"] if p["settings"].get("OMPI_MCA_btl") == "self,tcp"]
decided = [l for l in m["launches"] if l["status"] == "decided"]
reasons = {w for l in decided for w in l["warnings"] if "stopped by the race after round" in w}
stopped_after = int(next(iter(reasons)).split("after round ")[1].split(":")[0]) if reasons else 0
check(len(reasons) == 1 and 3 <= stopped_after <= 5,
      f"race: the TCP point was not stopped after round 3 to 5 with one reason: {reasons}")
for l in m["launches"]:
    late = tcp and l["point"] == tcp[0] and l["round"] > stopped_after
    check(l["status"] == ("decided" if late else "done"),
          f"race: {l['point']} round {l['round']} is {l['status']} (stopped after {stopped_after})")
    if late:
        check(not os.path.exists(os.path.join(store, "points", l["point"],
                                              f"round-{l['round']}.jsonl")),
              f"race: decided round {l['round']} left a records file")
check(f"12 launches: {6 + stopped_after} done, 0 failed, 0 timeout, {6 - stopped_after} not "
      "needed (race)" in stdout, f"race: summary line: {stdout[-600:]}")

if store:
    code, stdout, _ = h.run_sweep(args, "--resume", store)
    after = h.manifest(store)
    check(code == 0 and [l["status"] for l in after["launches"]]
          == [l["status"] for l in m["launches"]],
          f"resume: exit {code}, statuses {[l['status'] for l in after['launches']]}")
    out_dir = os.path.join(work, "report")
    os.makedirs(out_dir)
    proc = subprocess.run([args.colltune, "report", store, "--out", out_dir], capture_output=True,
                          text=True, timeout=120)
    md = os.path.join(out_dir, "report.md")
    text = open(md).read() if os.path.exists(md) else ""
    check(proc.returncode == 0 and f"{6 - stopped_after} not needed (stopped by the race)" in text
          and "| decided |" not in text, f"report: exit {proc.returncode}: {text[:600]}")

spec = h.write_spec(work, SPEC.format(race="false"), name="fixed.yaml")
code, stdout, stderr = h.run_sweep(args, spec, "--results", os.path.join(work, "fixed"))
check(code == 0 and "12 launches: 12 done, 0 failed, 0 timeout\n" in stdout,
      f"race: false: exit {code}: {stdout[-400:]}")

spec = h.write_spec(work, SPEC.format(race="maybe"), name="bad.yaml")
code, _, stderr = h.run_sweep(args, spec, "--results", os.path.join(work, "bad"))
check(code == 2 and "race: 'maybe' is not allowed; allowed: true false" in stderr,
      f"race: maybe: exit {code}: {stderr[-300:]}")
check(not os.path.exists(os.path.join(work, "bad")), "race: maybe: a store was written")
h.finish("sweep_race")
