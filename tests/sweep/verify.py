"""colltune verify on this machine, in real launches. The oracle for "slower" is measured, not
assumed: Open MPI 4.1's allreduce algorithm 3 (recursive doubling) took 1.4-1.6x the default's
time at 1-4 MiB on 4 ranks here (colltune run --interleave of every algorithm, 2026-12-03), so a
rules file forcing it from 1 MiB must be exit 1 naming that rule; the same file's rule below
1 MiB (algorithm 0, Open MPI's own choice) and a file that only restates the defaults must not be
slower (exit 0, or 3 where the launches leave a slowdown not ruled out); a sweep's own rules file,
tuned and then verified in fresh launches, is read and judged. Bad
input is exit 2 naming what is wrong."""
import os
import subprocess
import tempfile

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
root = tempfile.mkdtemp(prefix="colltune-verify-")
results = os.path.join(root, "results")


def colltune(*argv, limit_seconds=400):
    proc = subprocess.run([args.colltune, *argv], env=h.mpi_env(), capture_output=True, text=True,
                          timeout=limit_seconds)
    return proc.returncode, proc.stdout, proc.stderr


def write(name, text):
    path = os.path.join(root, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# Restating the defaults: rule 0 everywhere on 2 ranks.
defaults = write("defaults.rules", "1 # collectives\n2 # allreduce\n1\n2 # comm size\n1\n0 0 0 0\n")


def restates_defaults_ok(code, out):
    # Never slower; where the launches leave a size's interval past 5% it says it could not tell
    # (exit 3), never "nowhere shown slower".
    return ((code == 0 and "verify: nowhere shown slower by more than 5%" in out)
            or (code == 3 and "verify: could not tell at 1 of 1 row(s)" in out
                and "could not tell (the interval reaches" in out))


# "Not slower" is a claim about a rate, not a certainty: launches on this 2-vCPU host are
# bimodal (36 launches of 2 ranks, 2026-12-07: about a quarter ran every size 1.8-2.7x slower,
# 14 against 7.5 us at 8 KiB), and when chance puts every launch of one side in the slow mode a
# test at the 5% level rightly says "slower" (1 of 6 verifies at 3 rounds, once in CI). So the
# check runs at verify's default rounds and, on a false alarm, once more: a verify that calls a
# file restating the defaults slower twice in a row is wrong far beyond its 5%.
code, out, err = colltune("verify", defaults, "--results", results)
if not restates_defaults_ok(code, out):
    print(f"a file restating the defaults, first try: exit {code}: {out[-600:]}; once more")
    code, out, err = colltune("verify", defaults, "--results", results)
check(restates_defaults_ok(code, out),
      f"a file restating the defaults: exit {code}: {out[-1200:]} {err[-600:]}")

# Algorithm 3 from 1 MiB on 4 ranks: slower there (1.4-3x), named; below it Open MPI's own
# choice, read and judged. Its verdict is not asserted: 4 ranks on this 2-core host are
# oversubscribed, and consecutive launches of one configuration measured 0.66-1.78x apart at
# 8 B-32 KiB (6 pairs, with and without the dynamic-rules path), so 5 against 5 launches cannot
# promise "not slower" for the 20-30% the dynamic-rules path sometimes costs there. The
# false-alarm check is the 2-rank file restating the defaults above.
slow = write("slow.rules", "1\n2\n1\n4\n2\n0 0 0 0\n1048576 3 0 0\n")
code, out, err = colltune("verify", slow, "--rounds", "5", "--results", results)
check(code == 1 and slow + ":7: algorithm 3 from 1048576 B on 4 ranks" in out.split("do not deploy")[-1],
      f"a rules file forcing algorithm 3 from 1 MiB: exit {code}: {out[-1500:]} {err[-600:]}")
below = [line for line in out.splitlines() if line.startswith("allreduce 0 B-1048575 B")]
check(bool(below), f"the rule below 1 MiB was not judged: {out[-1500:]}")

# A sweep's own rules file, verified in fresh launches.
spec = write("sweep.yaml", """name: verify-source
launcher_args: [--oversubscribe]
repetitions: 2
env:
  OMPI_MCA_coll_tuned_use_dynamic_rules: 1
benchmark:
  collectives: [allreduce]
  min_bytes: 256K
  max_bytes: 4M
  step_factor: 4
  in_place: never
  check: 0
axes:
  np: [2]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [3, 4]
""")
code, _, err = colltune("sweep", spec, "--results", results)
check(code == 0, f"the source sweep: exit {code}: {err[-800:]}")
stores = [d for d in os.listdir(results) if d.startswith("verify-source")]
if stores:
    code, rules, err = colltune("tune", os.path.join(results, stores[0]), "--emit", "ompi-rules")
    check(code == 0, f"tune --emit ompi-rules: exit {code}: {err[-600:]}")
    tuned = write("tuned.rules", rules)
    # Read, every size judged; exit 0 or 1 (the dynamic-rules path's own cost, as below), or 3
    # where 2 launches a side leave a size undecided.
    code, out, err = colltune("verify", tuned, "--rounds", "2", "--results", results)
    check(code in (0, 1, 3) and "tuned.rules:" in out and "2 and 2 launches" in out,
          f"the sweep's own rules file in fresh launches: exit {code}: {out[-1500:]} {err[-600:]}")

# An env file restating a default (dynamic rules off, as Open MPI starts) is read and held against
# every size. Its verdict is not asserted: on the 2-core CI host exporting it measured 1.5x slower
# at 32 KiB in 30 of 30 rounds, either position (a real effect of the launch, not noise), so
# "slower" is a true answer there; the verdicts themselves are held to the rules files above.
env_file = write("defaults.env", "# from tune --emit env\nOMPI_MCA_coll_tuned_use_dynamic_rules='0'\n")
code, out, err = colltune("verify", env_file, "--np", "2", "--rounds", "2", "--results", results)
check(code in (0, 1, 3) and "\nallreduce 0 B and up (" in "\n" + out,
      f"an env file restating a default: exit {code}: {out[-800:]} {err[-400:]}")

# Bad input: exit 2 with the reason, before any launch.
for text, fragment, extra in (
        ('{"format": "nccl-tuner", "version": 1}', "not a colltune tuned file", []),
        ("1\n99\n1\n4\n1\n0 0 0 0\n", "collective id 99 is not one colltune measures", []),
        ("1\n2\n1\n4\n2\n0 0 0 0\n", "ends before its message size", []),
        ("1\n2\n1\n4\n1\n0 0 0 0\n", "was written for 4 ranks", ["--np", "2"]),
        ("NCCL_ALGO='Ring\n", "an unclosed quote", []),
        ("", "empty", []),
        ("1\n2\n1\n4\n1\n0 9 0 0\n", "allreduce algorithm 9; allowed: 0 (Open MPI decides) to 6",
         []),
        ("1\n2\n1\n4\n1\n0 0 0 0\n", "has no row for alltoall", ["--coll", "alltoall"]),
        ('{"format": "colltune-nccl-tuned", "version": 1, "rows": [{"collective": "alltoall"}]}',
         "row 1: collective: 'alltoall'", [])):
    path = write("bad", text)
    code, out, err = colltune("verify", path, "--results", results, *extra)
    check(code == 2 and fragment in err, f"{text!r}: exit {code}, expected 2 with {fragment!r}: "
                                         f"{err[-400:]}")
h.finish("verify")
