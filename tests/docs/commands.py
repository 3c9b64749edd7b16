"""Every colltune command in a code block of README.md and docs/*.md parses: it names a real
subcommand, and every option it gives is one that subcommand's own --help lists (the oracle is
the binary's help, not a list kept here). `colltune help TOPIC` lines run for real (exit 0, a
page that exists), and a sweep of a spec in the repository dry-runs. A page that shows a renamed
or removed option fails here instead of in a reader's shell."""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
parser.add_argument("--source", required=True)
args = parser.parse_args()
root = os.path.abspath(args.source)
sys.path.insert(0, os.path.join(root, "tests", "mpi"))
from harness import check, finish  # noqa: E402

COMMANDS = ("run", "sweep", "report", "compare", "noise", "tune", "verify", "health", "history",
            "import", "push", "topo", "help")
INVOCATION = re.compile(r"(?:^|[\s/\"'(])colltune\s+([A-Za-z][\w-]*|--help|--version)(.*)$")


def code_lines(text):
    """Shell lines of fenced blocks (untagged, sh, bash, console) and 4-space indented blocks,
    with continuation lines joined; (line number, text)."""
    out, fence, lang, pending, start = [], False, "", "", 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence, lang = (not fence), stripped[3:].strip().lower()
            continue
        shell = (fence and lang in ("", "sh", "bash", "shell", "console")) or \
            (not fence and line.startswith("    ") and stripped)
        if not shell:
            continue
        if not pending:
            start = number
        pending += (" " if pending else "") + stripped.rstrip("\\").strip()
        if not stripped.endswith("\\"):
            out.append((start, pending))
            pending = ""
    return out


help_texts = {}


def help_of(command):
    if command not in help_texts:
        proc = subprocess.run([args.colltune, command, "--help"], capture_output=True, text=True,
                              timeout=60)
        help_texts[command] = proc.stdout if proc.returncode == 0 else None
    return help_texts[command]


pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
seen = 0
for page in pages:
    name = os.path.relpath(page, root)
    for number, line in code_lines(open(page).read()):
        line = line.split(" #")[0]
        if line.lstrip().startswith("#"):
            continue
        m = INVOCATION.search(line)
        if not m:
            continue
        command, rest = m.group(1), m.group(2)
        where = f"{name}:{number}: colltune {command}{rest[:60]}"
        if command in ("--help", "--version"):
            seen += 1
            continue
        if command not in COMMANDS:
            # Prose in a block ("colltune writes ..."): only a word followed by options counts.
            check(not rest.strip().startswith("-"), f"{where}: '{command}' is not a command")
            continue
        seen += 1
        rest = re.sub(r"\$\([^)]*\)", "VALUE", rest)  # a substitution is one argument
        rest = re.split(r"\s(?:\||&&|;|>|2>|<)\s?", rest)[0]
        try:
            words = shlex.split(rest)
        except ValueError:
            words = rest.split()
        if command == "help":
            proc = subprocess.run([args.colltune, "help", *words], capture_output=True, text=True,
                                  timeout=60)
            pages_named = re.findall(r"(docs/[\w.-]+\.md)", proc.stdout)
            check(proc.returncode == 0 and pages_named and
                  all(os.path.exists(os.path.join(root, p)) for p in pages_named),
                  f"{where}: exit {proc.returncode}, pages {pages_named}: {proc.stderr[-200:]}")
            continue
        text = help_of(command)
        check(text is not None, f"{where}: colltune {command} --help failed")
        if text is None:
            continue
        for word in words:
            if not word.startswith("-") or word in ("-", "--", "-h", "--help") or \
                    re.match(r"-\d", word):
                continue
            option = word.split("=")[0]
            check(re.search(r"(^|[\s,\[|])" + re.escape(option) + r"([\s,=\]|]|$)", text,
                            re.M) is not None,
                  f"{where}: {option} is not among colltune {command} --help's options")
        spec = next((w for w in words if w.endswith((".yaml", ".yml"))), None)
        if command == "sweep" and spec and os.path.exists(os.path.join(root, spec)):
            proc = subprocess.run([args.colltune, "sweep", os.path.join(root, spec), "--dry-run"],
                                  capture_output=True, text=True, timeout=60, cwd=root)
            check(proc.returncode == 0, f"{where}: --dry-run: exit {proc.returncode}: "
                  f"{proc.stderr[-300:]}")
# Every command's --help ends with its page, and that page is in the repository.
for command in COMMANDS:
    if command == "help":
        continue
    text = help_of(command) or ""
    last = [line for line in text.splitlines() if line.strip()][-1:] or [""]
    page = re.match(r"Read more: (docs/[\w.-]+\.md)", last[0])
    check(page is not None and os.path.exists(os.path.join(root, page.group(1))),
          f"colltune {command} --help ends with '{last[0][:100]}', not its page")
# colltune --help and colltune help point at the same pages, every one in the repository.
listings = []
for argv in (["--help"], ["help"]):
    proc = subprocess.run([args.colltune, *argv], capture_output=True, text=True, timeout=60)
    listed = re.findall(r"(docs/[\w.-]+\.md)", proc.stdout)
    listings.append(listed)
    check(proc.returncode == 0 and len(listed) >= 12 and
          all(os.path.exists(os.path.join(root, p)) for p in listed),
          f"colltune {argv[0]}: exit {proc.returncode}, pages {listed}")
check(listings[0] == listings[1], f"--help lists {listings[0]}, help lists {listings[1]}")
proc = subprocess.run([args.colltune, "help", "nosuch"], capture_output=True, text=True, timeout=60)
check(proc.returncode == 2 and "help: 'nosuch' is not a topic or command; allowed: measuring" in
      proc.stderr, f"colltune help nosuch: exit {proc.returncode}: {proc.stderr[-300:]}")
check(seen >= 20, f"only {seen} colltune commands found in {len(pages)} pages: the scan is broken")
print(f"commands: {seen} colltune commands in {len(pages)} pages")
finish("docs.commands")
