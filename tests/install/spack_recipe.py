"""packaging/spack/colltune/package.py cannot be built here (no Spack): it must compile, its
variants must be the issue's (mpi, nccl; cuda and cuda_arch from CudaPackage), every CMake
variable it sets must be one colltune's CMakeLists.txt declares (or CMake's own), and its
cmake version bound must be CMakeLists.txt's cmake_minimum_required."""
import argparse
import ast
import os
import py_compile
import re
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
args = parser.parse_args()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish, skip  # noqa: E402


recipe = os.path.join(args.source, "packaging", "spack", "colltune", "package.py")
try:
    with tempfile.TemporaryDirectory() as scratch:
        py_compile.compile(recipe, doraise=True, cfile=os.path.join(scratch, "package.pyc"))
except py_compile.PyCompileError as e:
    check(False, f"{recipe} does not compile: {e}")
tree = ast.parse(open(recipe).read())
cmake = open(os.path.join(args.source, "CMakeLists.txt")).read()
declared = set(re.findall(r"option\((\w+)", cmake)) | set(re.findall(r"set\((\w+) [^)]*CACHE", cmake))

classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
check(len(classes) == 1 and [b.id for b in classes[0].bases] == ["CMakePackage", "CudaPackage"],
      "one class, a CMakePackage and CudaPackage (cuda and cuda_arch variants)")
calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def name_of(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


variants = [c.args[0].value for c in calls if name_of(c) == "variant"]
check(sorted(variants) == ["mpi", "nccl"], f"variants {variants}")
defined = [c.args[0].value for c in calls if name_of(c) in ("define", "define_from_variant")]
for name in defined:
    check(name in declared or name.startswith("CMAKE_"),
          f"package.py sets {name}, which CMakeLists.txt does not declare")
check({"COLLTUNE_WITH_MPI", "COLLTUNE_WITH_NCCL", "COLLTUNE_WITH_CUDA", "NCCL_HOME"} <= set(defined),
      f"the backends' switches set: {defined}")
minimum = re.search(r"cmake_minimum_required\(VERSION ([0-9.]+)\)", cmake).group(1)
bounds = [c.args[0].value for c in calls if name_of(c) == "depends_on" and
          c.args[0].value.startswith("cmake@")]
check(bounds == [f"cmake@{minimum}:"], f"cmake bound {bounds}, CMakeLists.txt asks {minimum}")
finish("spack_recipe")
