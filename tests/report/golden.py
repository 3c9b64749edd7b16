"""Every output format against golden files made from fixed stores. To accept a deliberate
change: COLLTUNE_UPDATE_GOLDEN=1 ctest -R report.golden, then review the diff."""
import difflib
import os

import report_harness as h
from report_harness import check

args = h.parse_args()
root = h.fixtures()
golden_dir = os.path.join(h.HERE, "golden")
update = os.environ.get("COLLTUNE_UPDATE_GOLDEN") == "1"

code, out, err = h.colltune(args, "report", "base", cwd=root)
check(code == 0, f"report: {code} {err}")
code, out, err = h.colltune(args, "report", "nccl", cwd=root)
check(code == 0, f"report nccl: {code} {err}")
code, out, err = h.colltune(args, "report", "many", cwd=root)
check(code == 0, f"report many: {code} {err}")
code, out, err = h.colltune(args, "report", "two", cwd=root)
check(code == 0, f"report two: {code} {err}")
code, out, err = h.colltune(args, "report", "nccl-tests.json", cwd=root)
check(code == 0, f"report nccl-tests: {code} {err}")
outputs = {name: open(os.path.join(root, "base", name)).read()
           for name in ("report.md", "report.html", "results.csv")}
outputs["nccl.report.md"] = open(os.path.join(root, "nccl", "report.md")).read()
# 16 configurations in one panel: labels, legend order and line styles pinned.
outputs["many.report.md"] = open(os.path.join(root, "many", "report.md")).read()
outputs["many.report.html"] = open(os.path.join(root, "many", "report.html")).read()
# Two configurations: the baseline and one knob, the smallest comparison.
outputs["two.report.md"] = open(os.path.join(root, "two", "report.md")).read()
outputs["two.report.html"] = open(os.path.join(root, "two", "report.html")).read()
outputs["nccl-tests.report.md"] = open(os.path.join(root, "nccl-tests.report.md")).read()
outputs["nccl-tests.results.csv"] = open(os.path.join(root, "nccl-tests.results.csv")).read()
for emit, store in (("ompi-rules", "base"), ("env", "base"), ("openmetrics", "base"),
                    ("nccl-tuner", "nccl")):
    code, out, err = h.colltune(args, "tune", store, "--emit", emit, cwd=root)
    check(code == 0, f"tune {emit}: {code} {err}")
    outputs[f"tune-{emit}.txt"] = out
code, out, err = h.colltune(args, "compare", "base", "slower", "--junit", "junit.xml", cwd=root)
check(code == 1, f"compare base slower: exit {code}, expected 1")
outputs["compare.md"] = out
outputs["compare-junit.xml"] = open(os.path.join(root, "junit.xml")).read()

for name, text in sorted(outputs.items()):
    path = os.path.join(golden_dir, name)
    if update:
        os.makedirs(golden_dir, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        continue
    expected = open(path).read() if os.path.exists(path) else ""
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "produced", n=1))
        check(False, f"{name} differs from its golden file:\n{diff[:3000]}")
h.finish("golden")
