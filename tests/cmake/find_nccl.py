"""cmake/FindNCCL.cmake finds NCCL in a prefix laid out as the nvidia-nccl-cu13 wheel is:
include/nccl.h and lib/libnccl.so.2, no libnccl.so link; NCCL_HOME wins over the CUDA prefix
(which holds a libnccl.so of its own on this machine). Before, it looked for libnccl.so only and
took the CUDA prefix's."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish  # noqa: E402

repo = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
work = tempfile.mkdtemp(prefix="colltune-find-nccl-")
wheel = os.path.join(work, "nvidia", "nccl")
os.makedirs(os.path.join(wheel, "include"))
os.makedirs(os.path.join(wheel, "lib"))
open(os.path.join(wheel, "include", "nccl.h"), "w").close()
open(os.path.join(wheel, "lib", "libnccl.so.2"), "w").close()
proc = subprocess.run(["cmake", "-S", os.path.join(repo, "tests", "cmake", "find_nccl"), "-B",
                       os.path.join(work, "build"), f"-DCOLLTUNE_CMAKE_DIR={repo}/cmake",
                       f"-DNCCL_HOME={wheel}"], capture_output=True, text=True, timeout=120)
out = proc.stdout + proc.stderr
check(proc.returncode == 0, f"configure: exit {proc.returncode}: {out[-800:]}")
want = f"found NCCL_LIBRARY={wheel}/lib/libnccl.so.2 NCCL_INCLUDE_DIR={wheel}/include"
check(want in out, f"expected '{want}' in: {out[-800:]}")
finish("find_nccl")
