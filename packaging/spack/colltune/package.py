# colltune's Spack recipe. Not built here: the machine colltune is developed on has no Spack, so
# CI checks only that this file compiles and that every CMake variable it sets is one colltune's
# CMakeLists.txt declares (tests/install/spack_recipe.py). colltune has no release tarball yet,
# so the recipe builds a clone of your own:
#   spack repo create ~/spack-colltune colltune_local
#   cp -r packaging/spack/colltune ~/spack-colltune/spack_repo/colltune_local/packages/
#   spack repo add ~/spack-colltune/spack_repo/colltune_local
#   spack develop --path $PWD colltune@=main +nccl cuda_arch=90 ^openmpi
#   spack install colltune
from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Colltune(CMakePackage, CudaPackage):
    """Benchmarks and tunes collective communication on GPU clusters: allreduce, alltoall and
    point-to-point sweeps on NCCL and MPI, swept knobs and placement, reports, tuned files NCCL
    and MPI load as they are, a CI gate, and a fleet check that names the slow node."""

    version("main")

    variant("mpi", default=True, description="the MPI backend and MPI launches")
    variant("nccl", default=True, when="+cuda", description="the NCCL backend (needs +cuda)")

    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi", when="+mpi")
    depends_on("nccl", when="+nccl")
    depends_on("hwloc")
    depends_on("fmt")
    depends_on("yaml-cpp")
    depends_on("nlohmann-json")
    depends_on("cli11")
    depends_on("curl")
    depends_on("boost")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("COLLTUNE_WITH_MPI", "mpi"),
            self.define("COLLTUNE_WITH_CUDA", "ON" if spec.satisfies("+cuda") else "OFF"),
            self.define("COLLTUNE_WITH_NCCL", "ON" if spec.satisfies("+nccl") else "OFF"),
            # Its tests need real mpirun, MPICH and Slurm beside it: run them from a clone.
            self.define("COLLTUNE_BUILD_TESTS", False),
            self.define("COLLTUNE_BUILD_BENCH", False),
        ]
        if spec.satisfies("+nccl"):
            args.append(self.define("NCCL_HOME", spec["nccl"].prefix))
        if spec.satisfies("+cuda"):
            cuda_arch = spec.variants["cuda_arch"].value
            if "none" not in cuda_arch:
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", ";".join(cuda_arch)))
        return args
