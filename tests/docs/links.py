"""Every relative link in README.md, docs/*.md and bench/README.md resolves to a file or folder
of the repository (anchors after '#' are not checked), and every `bench/...` or `scripts/...`
path a page names in backquotes exists: pages move with the files they point at."""
import argparse
import glob
import os
import re
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
args = parser.parse_args()
root = os.path.abspath(args.source)
pages = [os.path.join(root, "README.md"), os.path.join(root, "bench", "README.md")]
pages += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
failures = []
for page in pages:
    text = open(page).read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
        if not os.path.exists(path):
            failures.append(f"{os.path.relpath(page, root)}: link to {target}: no such file")
    for named in re.findall(r"`((?:bench|scripts)/[A-Za-z0-9_.\-/]+\.(?:sh|py|c|md))", text):
        if not os.path.exists(os.path.join(root, named)):
            failures.append(f"{os.path.relpath(page, root)}: names {named}: no such file")
for f in failures:
    print("FAIL: " + f)
print(f"links: {len(pages)} pages, " + ("ok" if not failures else f"{len(failures)} broken"))
sys.exit(1 if failures else 0)
