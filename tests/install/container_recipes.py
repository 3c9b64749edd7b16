"""packaging/container's Dockerfile and Apptainer definition cannot be built here (no container
runtime). The Dockerfile must parse (dockerfile-parse, PyPI; scripts/setup.sh --with-test-tools
puts it in build-mpis/pytools) and start FROM an NVIDIA image; the definition must have its header
and sections and build FROM the same image; both must install every package colltune's build needs
(.ci/run's list: the -dev libraries and the build tools, without the test-only ones) and set only
CMake variables CMakeLists.txt declares. Skipped (77) without the parser."""
import argparse
import os
import re
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--source", required=True)
args = parser.parse_args()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish, skip  # noqa: E402
try:
    from dockerfile_parse import DockerfileParser
except ImportError:
    skip("container_recipes", "no dockerfile-parse here (scripts/setup.sh --with-test-tools "
                              "installs it in build-mpis/pytools)")


root = os.path.abspath(args.source)
ci = open(os.path.join(root, ".ci", "run")).read()
ci_packages = set(re.findall(r"[a-z0-9][a-z0-9.+\-]+", ci.split("--no-install-recommends", 1)[1]
                             .split(">/dev/null", 1)[0]))
test_only = {"libgtest-dev", "libbenchmark-dev", "libmpich-dev", "libclang-rt-dev"}
needed = {p for p in ci_packages if p.endswith("-dev")} - test_only
needed |= {"build-essential", "cmake", "ninja-build", "pkg-config", "openmpi-bin"}
cmake = open(os.path.join(root, "CMakeLists.txt")).read()
declared = set(re.findall(r"option\((\w+)", cmake)) | set(re.findall(r"set\((\w+) [^)]*CACHE", cmake))


def installs_and_defines(text, where):
    words = set(re.findall(r"[a-z0-9][a-z0-9.+\-]+", text))
    check(needed <= words, f"{where} lacks {sorted(needed - words)}")
    for name in re.findall(r"-D(\w+)=", text):
        check(name in declared or name.startswith("CMAKE_"),
              f"{where} sets {name}, which CMakeLists.txt does not declare")


dockerfile = DockerfileParser(path=os.path.join(root, "packaging", "container", "Dockerfile"))
instructions = [i["instruction"] for i in dockerfile.structure if i["instruction"] != "COMMENT"]
check(instructions and instructions[0] == "FROM" and dockerfile.baseimage.startswith("nvcr.io/nvidia/"),
      f"Dockerfile: first {instructions[:1]}, base {dockerfile.baseimage}")
check(set(instructions) <= {"FROM", "RUN", "COPY", "ENV", "CMD", "WORKDIR", "ARG", "LABEL"},
      f"Dockerfile instructions: {instructions}")
runs = " ".join(i["value"] for i in dockerfile.structure if i["instruction"] == "RUN")
installs_and_defines(runs, "Dockerfile")

definition = open(os.path.join(root, "packaging", "container", "colltune.def")).read()
header = [l for l in definition.splitlines() if l and not l.startswith("#")]
check(header[:2] == ["Bootstrap: docker", f"From: {dockerfile.baseimage}"],
      f"colltune.def's header {header[:2]}, the Dockerfile's image {dockerfile.baseimage}")
sections = re.findall(r"^%(\w+)", definition, re.M)
check(sections == ["files", "post", "environment", "runscript"], f"colltune.def sections {sections}")
post = definition.split("%post", 1)[1].split("%environment", 1)[0]
installs_and_defines(post, "colltune.def %post")
finish("container_recipes")
