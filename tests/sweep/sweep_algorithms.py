"""A sweep of OMPI_MCA_coll_tuned_allreduce_algorithm 1..6 over 2 and 4 ranks completes with
every point in the store, each run under its own knob value, in rounds: every point's first
launch ends before any point's second starts (A B C, A B C), as the files' times show."""
import json
import os

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """
name: algorithms
launcher_args: [--oversubscribe]
point_timeout_seconds: 60
repetitions: 2
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 64K, step_factor: 64, iters: 5,
            samples: 3, warmup_iters: 1}
axes:
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2, 3, 4, 5, 6]
""")
results = os.path.join(work, "results")
code, stdout, stderr = h.run_sweep(args, spec, "--results", results)
check(code == 0, f"exit code {code}: {stderr[-2000:]}")
store = h.the_store(results)
check(store is not None, "no single store directory")
m = h.manifest(store)
check(len(m["points"]) == 14, f"{len(m['points'])} points, expected 12 + 2 baselines")
check(len({p["id"] for p in m["points"]}) == 14, "point ids are not unique")
check(all(l["status"] == "done" for l in m["launches"]), "not every launch is done")
check(len(m["launches"]) == 28, f"{len(m['launches'])} launches, expected 14 points x 2 rounds")
# Launches run one at a time, so the order their record files were last written is the order they
# ran: all of round 1, then all of round 2.
finished = sorted((os.stat(os.path.join(store, "points", l["point"], f"round-{l['round']}.jsonl"))
                   .st_mtime_ns, l["round"]) for l in m["launches"])
check([r for _, r in finished] == [1] * 14 + [2] * 14,
      f"rounds ran in the order {[r for _, r in finished]}, expected A B C, C B A")
# The second round runs backwards: no point always first, none always straight after another.
ran = [p for _, p in sorted((os.stat(os.path.join(store, "points", l["point"],
                                                  f"round-{l['round']}.jsonl")).st_mtime_ns,
                             l["point"]) for l in m["launches"])]
check(ran[14:] == ran[:14][::-1], f"round 2 ran {ran[14:]}, expected round 1 {ran[:14]} backwards")
check(f"results in {store}; read them with: colltune report {store}" in stdout,
      "the driver did not say where the results are and how to read them")
for point in m["points"]:
    path = os.path.join(store, "points", point["id"], "round-1.jsonl")
    records = [json.loads(l) for l in open(path)]
    check(len(records) == 6, f"{point['label']}: {len(records)} records")
    algorithm = point["settings"].get("OMPI_MCA_coll_tuned_allreduce_algorithm")
    for r in records:
        env = r["context"]["environment"]
        check(env.get("OMPI_MCA_coll_tuned_allreduce_algorithm") == algorithm,
              f"{point['label']}: the rank saw {env.get('OMPI_MCA_coll_tuned_allreduce_algorithm')}")
        check(r["nranks"] == int(point["settings"]["np"]), f"{point['label']}: nranks {r['nranks']}")
        check(r["wrong"] == 0, f"{point['label']}: wrong results")
check(os.path.exists(os.path.join(store, "spec.yaml")), "spec.yaml missing from the store")
h.finish("sweep_algorithms")
