"""--resume trusts files, not the manifest: a done launch whose records file was cut mid-record,
deleted with its point directory, or changed (one record dropped: still sound JSON, but not what
the launch left) is named and run again; afterwards every launch holds its 4 records and the
report reads the store. A manifest with a wrong type or cut short is refused naming the field."""
import json
import os
import shutil
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """name: damage
launcher: mpirun
launcher_args: [--oversubscribe]
repetitions: 2
benchmark: {collectives: [allreduce], min_bytes: 1K, max_bytes: 4K, step_factor: 4, samples: 3}
axes:
  np: 2
  OMPI_MCA_coll_tuned_use_dynamic_rules: [1]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2]
""")
results = os.path.join(work, "results")
code, out, err = h.run_sweep(args, spec, "--results", results)
check(code == 0, f"first sweep: exit {code}: {err[-400:]}")
store = h.the_store(results)
m = h.manifest(store)
points = [p["id"] for p in m["points"]]  # baseline, algorithm 1, algorithm 2
check(len(points) == 3, f"points: {points}")


def records(point, round_number):
    return os.path.join(store, "points", point, f"round-{round_number}.jsonl")


with open(records(points[0], 1), "rb") as f:
    data = f.read()
with open(records(points[0], 1), "wb") as f:
    # Cut mid-record: halfway into the second line (half the bytes can fall on a record's end
    # when the records happen to be of one length).
    second_start = data.index(b"\n") + 1
    second_end = data.index(b"\n", second_start)
    f.write(data[:(second_start + second_end) // 2])
shutil.rmtree(os.path.join(store, "points", points[1]))  # both rounds gone
with open(records(points[2], 2)) as f:
    lines = f.readlines()
with open(records(points[2], 2), "w") as f:
    f.writelines(lines[1:])  # sound JSON, one record short of what the launch left

code, out, err = h.run_sweep(args, "--resume", store)
text = out + err
check(code == 0, f"resume: exit {code}: {text[-600:]}")
check("sweep: resume: 4 done launches run again, their files damaged:" in text,
      f"the damage is not counted: {text}")
check(f"point {points[0]} round 1: line " in text and "cut off" in text, f"cut file: {text}")
for round_number in (1, 2):
    check(f"point {points[1]} round {round_number}: its records file is missing" in text,
          f"deleted round {round_number}: {text}")
check(f"point {points[2]} round 2: its records changed (3 records" in text,
      f"changed file: {text}")
check(text.count("done in") == 4, f"{text.count('done in')} launches ran, 4 expected")
for point in points:
    for round_number in (1, 2):
        path = records(point, round_number)
        got = sum(1 for line in open(path) if line.strip()) if os.path.isfile(path) else 0
        check(got == 4, f"{path}: {got} records after the resume, 4 expected")
proc = subprocess.run([args.colltune, "report", store], env=h.mpi_env(), capture_output=True,
                      text=True, timeout=60)
check(proc.returncode == 0, f"report after resume: exit {proc.returncode}: {proc.stderr}")

# A manifest of the wrong shape names its field; a cut one says so (no JSON library codes).
manifest_path = os.path.join(store, "manifest.json")
original = open(manifest_path).read()
broken = json.loads(original)
broken["launches"][0]["round"] = "one"
for text_in, wanted in ((json.dumps(broken), "manifest.json: launches[0].round: \"one\" is not "
                         "allowed; allowed: an integer"),
                        (original[:len(original) // 2], "manifest.json: not JSON (truncated")):
    with open(manifest_path, "w") as f:
        f.write(text_in)
    code, out, err = h.run_sweep(args, "--resume", store)
    check(code == 2 and wanted in err, f"damaged manifest: exit {code}: {err}")
    check("exception" not in err and "type_error" not in err, f"a library code leaked: {err}")
h.finish("sweep_resume_damage")
