"""cmake --install into a temporary prefix gives what a module or a container takes: P/bin/colltune,
P/lib/libnccl-tuner-colltune.so (where NCCL_TUNER_PLUGIN takes it), P/share/colltune/configs and
P/share/doc/colltune; no path into the build tree in the binary's RPATH; the installed colltune
runs at np 2 from another directory, and its verify finds the plugin in P/lib (a file for it gets
past the plugin check; with the plugin taken away, verify names P/lib's path). The whole
install with the build tree moved away, and the .deb, are scripts/install-check.sh (CI)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish, mpi_env  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--build", required=True)
parser.add_argument("--source", required=True)
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="colltune-install-test-")
prefix = os.path.join(work, "prefix")
proc = subprocess.run(["cmake", "--install", args.build, "--prefix", prefix], capture_output=True,
                      text=True, timeout=300)
check(proc.returncode == 0, f"cmake --install: {proc.stderr[-500:]}")
for path in ("bin/colltune", "lib/libnccl-tuner-colltune.so", "share/colltune/configs/default.yaml",
             "share/colltune/configs/annotated.yaml", "share/doc/colltune/README.md",
             "share/doc/colltune/docs/health.md"):
    check(os.path.isfile(os.path.join(prefix, path)), f"{path} not installed")
colltune = os.path.join(prefix, "bin", "colltune")
dynamic = subprocess.run(["readelf", "-d", colltune], capture_output=True, text=True).stdout
check(os.path.realpath(args.build) not in dynamic and "$ORIGIN/lib" not in dynamic,
      f"the installed binary points into the build tree: {[l for l in dynamic.splitlines() if 'PATH' in l]}")

proc = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", colltune, "run", "--coll",
                       "allreduce", "-b", "8", "-e", "1K", "--check"], cwd=work, env=mpi_env(),
                      capture_output=True, text=True, timeout=120)
check(proc.returncode == 0 and "Avg bus bandwidth" in proc.stdout,
      f"the installed colltune at np 2: exit {proc.returncode}: {proc.stderr[-400:]}")

# colltune help finds its pages in the prefix (docs/ beside README.md), not in the source tree.
proc = subprocess.run([colltune, "help", "measuring"], capture_output=True, text=True, timeout=60)
installed_page = os.path.join(prefix, "share", "doc", "colltune", "docs", "measuring.md")
check(proc.returncode == 0 and f"docs/measuring.md ({installed_page})" in proc.stdout,
      f"colltune help measuring from the prefix: exit {proc.returncode}: {proc.stdout[-300:]}")

fixtures = os.path.join(work, "fixtures")
subprocess.run([sys.executable, os.path.join(args.source, "tests", "report", "make_fixtures.py"),
                fixtures], check=True)
plugin_file = os.path.join(work, "plugin.json")
proc = subprocess.run([colltune, "tune", os.path.join(fixtures, "nccl"), "--emit", "nccl-plugin"],
                      capture_output=True, text=True, timeout=60)
open(plugin_file, "w").write(proc.stdout)
plugin = os.path.join(prefix, "lib", "libnccl-tuner-colltune.so")
# Without Open MPI's root consent the verify stops at its sweep's preflight, past the plugin.
env = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_")}
proc = subprocess.run([colltune, "verify", plugin_file], cwd=work, env=env, capture_output=True,
                      text=True, timeout=60)
check("not there" not in proc.stderr, f"verify did not find {plugin}: {proc.stderr[-400:]}")
os.remove(plugin)
proc = subprocess.run([colltune, "verify", plugin_file], cwd=work, env=env, capture_output=True,
                      text=True, timeout=60)
check(proc.returncode == 2 and f"{plugin}: not there" in proc.stderr,
      f"verify without the plugin: exit {proc.returncode}: {proc.stderr[-400:]}")
shutil.rmtree(work, ignore_errors=True)
finish("install_prefix")
