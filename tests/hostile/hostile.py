#!/usr/bin/env python3
"""Hostile inputs from a table (cases.tsv): each must exit as listed, naming the field at fault,
and leave nothing behind. Usage: hostile.py --colltune PATH [--pending]"""
import argparse
import errno
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "mpi"))
from harness import check, finish, mpi_env, skip  # noqa: E402
sys.path.insert(0, HERE)
from gate_inputs import gate_inputs  # noqa: E402

NAME = "hostile.inputs"
PENDING = "# pending: "
PLACEHOLDER = re.compile(r"\{[a-z]+\}")
LEFTOVER = re.compile(r"(\.partial|\.tmp)$|^\.colltune-probe-")
PLAIN_TEXT = "a regular file that must survive\n"


class Case:
    def __init__(self, lineno, expected, fragment, argv, pending):
        self.lineno, self.expected, self.fragment = lineno, expected, fragment
        self.argv, self.pending = argv, pending
        self.code = self.stdout = self.stderr = None
        self.tmp = None


def parse_cases(path, with_pending):
    cases = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            pending = line.startswith(PENDING)
            if pending and with_pending:
                line = line[len(PENDING):]
            elif not line.strip() or line.startswith("#"):
                continue
            words = line.split("\t")
            if len(words) < 3 or not re.fullmatch(r"!0|\d+", words[0]) or not words[1]:
                sys.exit(f"{path}:{lineno}: not 'exit<TAB>fragment<TAB>argv...': {line!r}")
            cases.append(Case(lineno, words[0], words[1], words[2:], pending))
    return cases


def setup(args, root):
    """Fixtures and the named files the table's placeholders stand for."""
    fx = os.path.join(root, "fx")
    subprocess.run([sys.executable, os.path.join(HERE, "..", "report", "make_fixtures.py"), fx],
                   check=True)
    files = os.path.join(root, "setup")
    os.mkdir(files)
    names = {"colltune": os.path.abspath(args.colltune), "fx": fx}

    def path(name, file_name):
        names[name] = os.path.join(files, file_name)
        return names[name]

    noise = path("noise", "noise.json")
    proc = subprocess.run([args.colltune, "noise", os.path.join(fx, "base"), "--out", noise],
                          env=mpi_env(), capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        sys.exit(f"setup: colltune noise failed ({proc.returncode}): {proc.stderr}")
    with open(noise) as f:
        valid = json.load(f)
    for key in ("launch_sd_log", "degrees_of_freedom"):
        if key not in valid:
            sys.exit(f"setup: {noise} has no '{key}': {valid}")
    variants = {
        "huge": dict(valid, launch_sd_log=1e308),
        "strsd": dict(valid, launch_sd_log="0.1"),
        "nodof": {k: v for k, v in valid.items() if k != "degrees_of_freedom"},
        "noisearray": [valid],
    }
    for name, doc in variants.items():
        with open(path(name, f"noise-{name}.json"), "w") as f:
            json.dump(doc, f)

    for name, seconds in (("denorm", 5e-324), ("toolong", 1e7)):
        store = path(name, name)
        shutil.copytree(os.path.join(fx, "base"), store)
        with open(os.path.join(store, "manifest.json")) as f:
            launch = next(l for l in json.load(f)["launches"] if l["status"] == "done")
        records = os.path.join(store, launch["records"])
        with open(records) as f:
            lines = f.read().splitlines()
        first = json.loads(lines[0])
        first["samples_seconds"] = [seconds] * len(first["samples_seconds"])
        lines[0] = json.dumps(first)
        with open(records, "w") as f:
            f.write("\n".join(lines) + "\n")

    texts = {
        "plainfile": ("plain.txt", PLAIN_TEXT),
        "nulljsonl": ("null.jsonl", "null\n"),
        "arrayjsonl": ("array.jsonl", "[1,2]\n"),
        "dupspec": ("dup.yaml", "name: a\nname: a\n"),
        "hostsspec": ("hosts.yaml", 'name: h\nhosts: ["-np"]\n'),
        "shellhostspec": ("shellhost.yaml", 'name: h\nhosts: ["$(touch /tmp/x)"]\n'),
        "dupaxisspec": ("dupaxis.yaml", "axes:\n  np: [2]\n  np: [4]\n"),
        "nulspec": ("nul.yaml", 'name: "a\\0b"\n'),
        "complexkeyspec": ("complex.yaml", "? [a, b]\n: 1\n"),
        "baselinespec": ("baseline.yaml", "axes:\n  OMPI_MCA_coll_tuned_use_dynamic_rules: [1]\n"
                         "  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2]\n"
                         "baseline: {OMPI_MCA_coll_tuned_allreduce_algorithm: 9}\n"),
        "bigspec": ("big.yaml", "axes:\n" + "".join(
            f"  NCCL_{k}: [{', '.join(str(v) for v in range(1, 51))}]\n" for k in "ABCDE")),
        "wrongtype": ("wrongtype.jsonl", None),
        "ncclv4": ("nccl-v4.json", None),
    }
    with open(os.path.join(fx, "base", "manifest.json")) as f:
        launch = next(l for l in json.load(f)["launches"] if l["status"] == "done")
    with open(os.path.join(fx, "base", launch["records"])) as f:
        record = json.loads(f.readline())
    record["dtype"] = 5
    texts["wrongtype"] = ("wrongtype.jsonl", json.dumps(record) + "\n")
    with open(os.path.join(fx, "nccl-tests.json")) as f:
        nccl_tests = json.load(f)
    texts["ncclv4"] = ("nccl-v4.json", json.dumps(dict(nccl_tests, version=4)))
    for name, (file_name, text) in texts.items():
        with open(path(name, file_name), "w") as f:
            f.write(text)
    gate_inputs(fx, files, names, path)
    # A full device of our own (the kernel's 1:7), so that a bug, or a mutant of the output-path
    # check, replaces this node and never the system's /dev/full. Without mknod (not root),
    # the system's.
    fulldev = os.path.join(root, "full")
    try:
        os.mknod(fulldev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        with open(fulldev, "w") as f:  # a nodev mount would refuse it
            f.write("x")
        fulldev = "/dev/full"  # not reached: a full device refuses the write
    except OSError as e:
        if e.errno != errno.ENOSPC:
            fulldev = "/dev/full"
    names["fulldev"] = fulldev
    os.symlink(fulldev, path("fulljson", "full.json"))
    return names


def substitute(case, word, names):
    for key, value in names.items():
        word = word.replace("{" + key + "}", value)
    unknown = PLACEHOLDER.findall(word)
    if unknown:
        sys.exit(f"cases.tsv:{case.lineno}: unknown placeholder(s) {unknown}")
    return word


def excerpt(case):
    """colltune's own lines first (mpirun's banner buries them), then stderr's tail."""
    err = case.stderr.strip().splitlines()
    own = [l for l in err if l.startswith("colltune:")][:3]
    rest = [l for l in err[-6:] if l not in own]
    if not err:
        return ["(stderr empty) stdout:"] + case.stdout.strip().splitlines()[:4]
    return own + (["..."] if own and rest else []) + rest


def run_case(case, names, root):
    case.tmp = os.path.join(root, f"case-{case.lineno}")
    os.mkdir(case.tmp)
    local = dict(names, tmp=case.tmp)
    argv = [substitute(case, w, local) for w in case.argv]
    case.fragment = substitute(case, case.fragment, local)
    limit = 60
    if argv[0] == "mpirun":
        argv = ["mpirun", "--oversubscribe", "-np", "2"] + argv[1:]
        limit = 120
    try:
        proc = subprocess.run(argv, env=mpi_env(), capture_output=True, text=True,
                              timeout=limit, stdin=subprocess.DEVNULL)
        case.code, case.stdout, case.stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        case.code = "timeout"
        case.stdout = e.stdout.decode(errors="replace") if e.stdout else ""
        case.stderr = e.stderr.decode(errors="replace") if e.stderr else ""
    if case.expected == "!0":
        code_ok = isinstance(case.code, int) and case.code != 0
    else:
        code_ok = case.code == int(case.expected)
    said = case.fragment in case.stderr or case.fragment in case.stdout
    if not (code_ok and said):
        tail = "\n    ".join(excerpt(case))
        what = [] if code_ok else [f"exit {case.code}, expected {case.expected}"]
        what += [] if said else [f"no {case.fragment!r} in stdout or stderr"]
        check(False, f"cases.tsv:{case.lineno}: {' '.join(case.argv)}\n  {'; '.join(what)}"
                     f"\n  output:\n    {tail}")
    elif case.pending:
        print(f"cases.tsv:{case.lineno}: pending case passes now: un-comment it")


def is_char_device(path):
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def leftovers(top):
    found = []
    for directory, dirs, files in os.walk(top):
        found += [os.path.join(directory, n) for n in dirs + files if LEFTOVER.search(n)]
    return found


def side_effects(cases, names, root):
    fulldev = names["fulldev"]
    full = [c for c in cases if "{fulldev}" in c.argv]
    if full:
        check(is_char_device(fulldev),
              f"cases.tsv:{full[0].lineno}: {fulldev} is no longer a character device")
        parent = os.path.dirname(fulldev)
        odd = [n for n in os.listdir(parent) if n.startswith("full") and n not in ("full",)]
        check(not odd, f"cases.tsv:{full[0].lineno}: left in {parent}: {odd}")
    check(not os.path.exists("/nonexistent-dir"), "/nonexistent-dir was created")

    # Refused cases leave their {tmp} as it was: empty.
    for case in cases:
        if case.expected == "2" and case.code == 2 and os.listdir(case.tmp):
            check(False, f"cases.tsv:{case.lineno}: left in {{tmp}}: {os.listdir(case.tmp)}")
    found = leftovers(root)
    check(not found, f"temporary files left behind: {found}")

    with open(names["plainfile"]) as f:
        check(f.read() == PLAIN_TEXT, "{plainfile} was changed by report --out {plainfile}")

    # Links are followed, never replaced: /dev/stdout stays the kernel's link, a link to
    # the full device stays a link.
    for link in ("/dev/stdout", names["fulljson"]):
        check(os.path.islink(link), f"{link} is no longer a symlink")
    check(is_char_device(fulldev), f"{fulldev} is no longer a character device")

    # The duplicate input is a warning, on stderr, not part of the report.
    twice = [c for c in cases if c.fragment == "given twice"]
    check(bool(twice), "cases.tsv: no case gives --baseline twice")
    for case in twice:
        check("warning" in case.stderr and "given twice" in case.stderr,
              f"cases.tsv:{case.lineno}: no 'given twice' warning on stderr")
        check("given twice" not in case.stdout,
              f"cases.tsv:{case.lineno}: the 'given twice' warning went to stdout")


def read_only_store(args, names, root):
    """report into a store this user cannot write: exit 2 before reading, naming the store. As
    root (who writes anything), the run is as nobody, over world-readable copies."""
    store = os.path.join(root, "ro-store")
    shutil.copytree(os.path.join(names["fx"], "base"), store)
    argv = [os.path.abspath(args.colltune), "report", store]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            print("read-only store: skipped: setpriv is not on PATH")
            return
        for directory, _, files in os.walk(root):
            os.chmod(directory, 0o755)
            for name in files:
                os.chmod(os.path.join(directory, name), 0o644)
        argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv
    else:
        os.chmod(store, 0o555)
    before = sorted(os.listdir(store))
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    check(proc.returncode == 2, f"read-only store: exit {proc.returncode}: {proc.stderr}")
    check(f"'{store}' cannot be written" in proc.stderr, f"read-only store: {proc.stderr}")
    os.chmod(store, 0o755)
    check(sorted(os.listdir(store)) == before, "read-only store: files appeared in it")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--cases", default=os.path.join(HERE, "cases.tsv"))
    parser.add_argument("--pending", action="store_true",
                        help="also run the '# pending: ' cases (those that fail today)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if not os.access(args.colltune, os.X_OK):
        sys.exit(f"{NAME}: {args.colltune} is not an executable file")
    cases = parse_cases(args.cases, args.pending)
    if any(c.argv[0] == "mpirun" for c in cases) and shutil.which("mpirun") is None:
        skip(NAME, "mpirun is not on PATH")
    root = tempfile.mkdtemp(prefix="colltune-hostile-")
    try:
        names = setup(args, root)
        if not is_char_device("/dev/full"):
            for case in [c for c in cases if "/dev/full" in c.argv]:
                print(f"cases.tsv:{case.lineno}: skipped: /dev/full is not a device here")
            cases = [c for c in cases if "/dev/full" not in c.argv]
        for case in cases:
            run_case(case, names, root)
        side_effects(cases, names, root)
        read_only_store(args, names, root)
        for case in cases:
            # No secret of any input or URL reaches any output.
            check("hunter2" not in case.stdout + case.stderr,
                  f"cases.tsv:{case.lineno}: a secret ('hunter2') is in the output")
            # One clear line, never the JSON library's code or a C++ exception's type name.
            leaked = [w for w in ("json.exception", "type_error", "out_of_range", "bad_alloc",
                                  "terminate called") if w in case.stderr]
            check(not leaked, f"cases.tsv:{case.lineno}: library text {leaked} in the output")
        print(f"{NAME}: {len(cases)} case(s) from {args.cases}")
    finally:
        if args.keep:
            print(f"{NAME}: kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    finish(NAME)


if __name__ == "__main__":
    main()
