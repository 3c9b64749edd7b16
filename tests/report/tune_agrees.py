"""tune --emit env and the report come from one decision, and the exported value is exact: for
knob values holding quotes, a comma, a newline or backslashes, a store where that value is made
2x faster (a model, so the oracle is known) has the report name it the significant winner and
tune export it; sourcing the export in bash gives the value byte for byte. A store where no
value differs exports nothing."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_fixtures as fx  # noqa: E402
from report_harness import check, colltune, finish, parse_args  # noqa: E402

args = parse_args()
root = tempfile.mkdtemp(prefix="colltune-tune-agrees-")
KNOB = "X_KNOB"
VALUES = ["alpha-q\"uo'te,comma", "bravo-new\nline", "charlie-back\\slash\\"]


def stored(value):
    # The store keeps colltune's escaped text (docs/jsonl-schema.md): a backslash as two.
    return value.replace("\\", "\\\\")


def store_for(name, winner):
    base = {"backend": "mpi", "np": "2"}
    points = [(base, "backend=mpi np=2 (no knob set)", True)]
    for value in VALUES:
        label = f"backend=mpi np=2 {KNOB}={stored(value)}"
        points.append((dict(base, **{KNOB: stored(value)}), label, False))

    def model(settings, coll, size):
        t = 10e-6 + size / 1e9
        return t * (0.5 if winner is not None and settings.get(KNOB) == stored(winner) else 1.0)

    path = os.path.join(root, name)
    fx.write_store(path, name, points, model, "mpi", 2, ["node1"])
    return path


for index, winner in enumerate(VALUES + [None]):
    store = store_for(f"s{index}", winner)
    code, _, err = colltune(args, "report", store)
    check(code == 0, f"report {index}: exit {code}: {err}")
    report = open(os.path.join(store, "report.md")).read()
    answer = report.split("## What to set", 1)[-1].split("## Context", 1)[0]
    code, env_text, err = colltune(args, "tune", store, "--emit", "env")
    check(code == 0, f"tune {index}: exit {code}: {err}")
    env_file = os.path.join(root, f"s{index}.env")
    with open(env_file, "w") as f:
        f.write(env_text)
    sourced = subprocess.run(["bash", "-c", f'. "$1"; printf %s "${{{KNOB}-unset}}"', "bash",
                              env_file], capture_output=True, timeout=30)
    got = sourced.stdout.decode("utf-8", "surrogateescape")
    if winner is None:
        check("(significant)" not in answer, f"no winner planted, yet the report names one: "
                                             f"{answer}")
        check(got == "unset", f"no winner planted, yet tune exports {got!r}: {env_text}")
        continue
    tag = winner.split("-", 1)[0]
    won = [line for line in answer.splitlines() if tag in line and "(significant)" in line]
    check(len(won) >= 1, f"{tag}: the report's answer does not name it significant: {answer}")
    check(sourced.returncode == 0 and got == winner,
          f"{tag}: sourced {got!r}, wanted {winner!r} (tune printed: {env_text!r})")
    for other in VALUES:
        if other != winner:
            check(other.split("-", 1)[0] not in got, f"{tag}: tune exported another value")

# A secret-named knob (as a sweep stores it: redacted) that wins 2x is never exported: a line
# setting X_API_TOKEN='<redacted 1>' would overwrite the user's real token when sourced.
base = {"backend": "mpi", "np": "2"}
secret_points = [(base, "backend=mpi np=2 (no knob set)", True),
                 (dict(base, X_API_TOKEN="<redacted 1>"),
                  "backend=mpi np=2 X_API_TOKEN=<redacted 1>", False)]
secret_store = os.path.join(root, "secret")
fx.write_store(secret_store, "secret", secret_points,
               lambda settings, coll, size: (10e-6 + size / 1e9) *
               (0.5 if "X_API_TOKEN" in settings else 1.0), "mpi", 2, ["node1"])
code, env_text, err = colltune(args, "tune", secret_store, "--emit", "env")
check(code == 0 and "X_API_TOKEN" not in env_text,
      f"tune of a winning secret knob: exit {code}, printed {env_text!r} {err}")
finish("tune_agrees")
