"""The GPU bundle on a host like the device machines: the driver and NCCL from Python wheels, no
CUDA prefix, no Open MPI. Bundles with scripts/gpu-bundle.sh, lays out a venv as the
nvidia-nccl-cu13 and nvidia-cuda-runtime wheels do (nvidia/nccl/lib, nvidia/cu13/lib, no
__init__.py: namespace packages), then, in a mount namespace that hides the CUDA prefix, Open MPI's
components and mpirun, runs scripts/gpu-check.sh on the bundle. It must reach colltune's own
"no CUDA device" error (this host has no GPU), never the loader's; without the venv it must name
the library it could not find and where it looked; with a bundle needing a newer glibc than the
host's it must say so. Skipped (77) where the build has no NCCL backend, where `unshare -m` is
not allowed, or where a GPU is visible (gpu-check runs for real there)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish, skip  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
args = parser.parse_args()
repo = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

version = subprocess.run([args.colltune, "--version"], capture_output=True, text=True).stdout
if " nccl" not in version:
    skip("bare_host", "this build has no NCCL backend, so there is no GPU bundle to make")
if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"],
                                                 capture_output=True).returncode == 0:
    skip("bare_host", "a GPU is visible here: scripts/gpu-check.sh runs for real on this host")
if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
    skip("bare_host", "`unshare -m` is not allowed here (needs root or user namespaces)")

# The CUDA prefix this build links NCCL from: the directory the namespace hides.
ldd = subprocess.run(["ldd", args.colltune], capture_output=True, text=True).stdout
nccl_lib = next(line.split("=>")[1].split()[0] for line in ldd.splitlines()
                if "libnccl.so" in line and "=>" in line)
cudart = os.path.join(os.path.dirname(os.path.realpath(nccl_lib)), "libcudart.so.13")
cuda_prefix = os.path.dirname(os.path.dirname(os.path.realpath(nccl_lib)))

work = tempfile.mkdtemp(prefix="colltune-bare-host-")
bundle = os.path.join(work, "bundle")
proc = subprocess.run([os.path.join(repo, "scripts", "gpu-bundle.sh"), bundle], capture_output=True,
                      text=True, timeout=900)
check(proc.returncode == 0, f"gpu-bundle.sh: exit {proc.returncode}: {proc.stderr[-800:]}")
libs = sorted(os.listdir(os.path.join(bundle, "lib")))
check(not any(n.startswith(("libnccl", "libcuda", "libc.so", "ld-linux")) for n in libs),
      f"the bundle carries a library the host provides: {libs}")
check("libcudart.so.13" not in ldd, "colltune still needs libcudart.so (link it statically)")
# RUNPATH $ORIGIN/lib and nothing else: an RPATH (searched before LD_LIBRARY_PATH) or this
# machine's CUDA prefix would load the build machine's NCCL layout on the host.
for binary in ["colltune", "colltune-nompi"] + [os.path.join("lib", n) for n in libs]:
    dyn = subprocess.run(["readelf", "-d", os.path.join(bundle, binary)], capture_output=True,
                         text=True).stdout
    paths = [line.split("[", 1)[1].rstrip("]") + (" (RPATH)" if "(RPATH)" in line else "")
             for line in dyn.splitlines() if "(RPATH)" in line or "(RUNPATH)" in line]
    if "/" not in binary:
        check(paths == ["$ORIGIN/lib"], f"{binary}: search paths {paths}, allowed: RUNPATH "
                                        "$ORIGIN/lib only")
    else:
        check(paths in ([], ["$ORIGIN"]), f"{binary}: search paths {paths}, allowed: RUNPATH "
                                          "$ORIGIN or none")

glibc_host = os.confstr("CS_GNU_LIBC_VERSION").split()[1]
requires = dict(line.split(" ", 1) for line in open(os.path.join(bundle, "REQUIRES")).read().splitlines())
needed = tuple(int(x) for x in requires.get("glibc", "0").split("."))
check((2, 17) <= needed <= tuple(int(x) for x in glibc_host.split(".")),
      f"REQUIRES glibc {requires.get('glibc')}: a bundle built here needs at most this host's "
      f"{glibc_host} and every x86-64 build at least 2.17")

# The wheels' layout, with this prefix's libraries (hard links: the same filesystem, no copy).
venv = os.path.join(work, "venv")
subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
python = os.path.join(venv, "bin", "python3")
site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                      capture_output=True, text=True, check=True).stdout.strip()
for wheel_dir, lib in (("nccl", os.path.realpath(nccl_lib)), ("cu13", cudart)):
    target_dir = os.path.join(site, "nvidia", wheel_dir, "lib")
    os.makedirs(target_dir)
    target = os.path.join(target_dir, os.path.basename(lib) if wheel_dir == "cu13" else "libnccl.so.2")
    try:
        os.link(lib, target)
    except OSError:
        shutil.copy(lib, target)
namespace = subprocess.run([python, "-c", "import nvidia.nccl; print(nvidia.nccl.__file__)"],
                           capture_output=True, text=True).stdout.strip()
check(namespace == "None", f"the fake wheel is not a namespace package as the real one: {namespace}")

empty = os.path.join(work, "not-executable")
open(empty, "w").close()
os.chmod(empty, 0o644)
mpirun = shutil.which("mpirun")
# $1 the CUDA prefix, $2 mpirun's target or "", $3 the empty file, $4 Open MPI's directory or "",
# then gpu-check.sh and its argument.
hide = """mount -t tmpfs none "$1" || exit 90
[ -z "$2" ] || mount --bind "$3" "$2" || exit 91
[ -z "$4" ] || mount -t tmpfs none "$4" || exit 92
shift 4
exec "$@"
"""
openmpi = "/usr/lib/x86_64-linux-gnu/openmpi" if os.path.isdir("/usr/lib/x86_64-linux-gnu/openmpi") else ""


def bare_host_check(bundle_dir, path_first=None):
    env = dict(os.environ)
    if path_first:
        env["PATH"] = path_first + os.pathsep + env["PATH"]
    env.pop("LD_LIBRARY_PATH", None)
    proc = subprocess.run(["unshare", "-m", "bash", "-c", hide, "hide", cuda_prefix,
                           os.path.realpath(mpirun) if mpirun else "", empty, openmpi,
                           os.path.join(repo, "scripts", "gpu-check.sh"), bundle_dir],
                          env=env, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


code, out = bare_host_check(bundle, os.path.join(venv, "bin"))
check(code == 2 and "colltune: error: --backend nccl: no CUDA device" in out,
      f"wheels, no CUDA prefix: exit {code}, expected colltune's own no-GPU error: {out[-1500:]}")
check("error while loading shared libraries" not in out, f"the loader failed: {out[-800:]}")
check(mpirun is None or "running the build without MPI" in out,
      f"without mpirun gpu-check did not take colltune-nompi: {out[-800:]}")

# An mpirun that is not the Open MPI the bundle was built with (MPICH's here): the MPI build
# would die in MPI_Init, so gpu-check takes the build without MPI and says why.
fake = os.path.join(work, "mpich-bin")
os.makedirs(fake)
with open(os.path.join(fake, "mpirun"), "w") as f:
    f.write("#!/bin/sh\necho 'HYDRA build details:'\necho '    Version: 4.2.0'\n")
os.chmod(os.path.join(fake, "mpirun"), 0o755)
wanted = requires.get("openmpi", "")
code, out = bare_host_check(bundle, fake + os.pathsep + os.path.join(venv, "bin"))
check(not wanted or wanted == "unknown" or
      (f"not Open MPI {wanted}" in out and "running the build without MPI" in out),
      f"an MPICH mpirun: gpu-check did not take colltune-nompi with the reason: {out[-800:]}")
check(code == 2 and "no CUDA device" in out, f"an MPICH mpirun: exit {code}: {out[-800:]}")

code, out = bare_host_check(bundle)
check(code == 2 and "cannot load libnccl.so.2" in out and "nvidia/{nccl,cu13" in out,
      f"no wheels, no CUDA prefix: exit {code}, expected the missing library named: {out[-800:]}")

old = os.path.join(work, "needs-newer-glibc")
shutil.copytree(bundle, old, symlinks=True)
with open(os.path.join(old, "REQUIRES"), "w") as f:
    f.write("glibc 99.0\nbuilt-on the future\n")
code, out = bare_host_check(old, os.path.join(venv, "bin"))
check(code == 2 and f"needs glibc >= 99.0 (the future); this host has {glibc_host}" in out,
      f"a bundle needing glibc 99.0: exit {code}: {out[-800:]}")
shutil.rmtree(work, ignore_errors=True)
finish("bare_host")
