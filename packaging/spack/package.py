# Spack recipe for AdaComp. Copy into a repository of your own
# (spack repo create; packages/adacomp/package.py), then e.g.
#   spack install adacomp ^openmpi      spack install adacomp ^mpich
# Each spec builds for one MPI; its names carry the flavour
# (adacomp-openmpi, libadacomp-mpich.so), so one view can hold both with
# +default_names on one of them only.
from spack.package import *


class Adacomp(CMakePackage):
    """Transparent compression of MPI messages: an unmodified MPI program
    loads libadacomp (LD_PRELOAD or the adacomp launcher) and the calls it
    intercepts compress their payloads where that pays. Lossless by default,
    lossy only within a user-set error bound."""

    homepage = "https://github.com/adacomp/adacomp"
    git = "https://github.com/adacomp/adacomp.git"

    maintainers("adacomp")
    license("BSD-3-Clause")

    # No release is tagged yet: the branch is the one version there is.
    version("main", branch="main")

    variant(
        "default_names",
        default=True,
        description="Also install the plain names (adacomp, adacomp-calibrate, libadacomp.so, "
        "adacomp.pc) for this MPI; disable for the second MPI in a shared view",
    )
    variant(
        "report",
        default=True,
        description="Plots in adacomp-report (matplotlib); the text summary needs Python only",
    )

    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    # Generates the Fortran entry points at build time; runs adacomp-report.
    depends_on("python@3.6:", type=("build", "run"))
    depends_on("mpi")
    depends_on("zstd")
    depends_on("lz4")
    depends_on("c-blosc")
    depends_on("zfp")
    depends_on("py-matplotlib", type="run", when="+report")

    # The build reads its MPI flavour from mpi.h: Open MPI or the MPICH ABI.
    conflicts("^spectrum-mpi", msg="AdaComp is built for Open MPI or an MPICH-ABI MPI")

    def cmake_args(self):
        mpi = self.spec["mpi"]
        return [
            self.define("MPI_C_COMPILER", mpi.mpicc),
            self.define("MPI_CXX_COMPILER", mpi.mpicxx),
            self.define_from_variant("ADACOMP_DEFAULT_NAMES", "default_names"),
            self.define("BUILD_TESTING", self.run_tests),
        ]

    def setup_run_environment(self, env):
        env.prepend_path("MANPATH", self.prefix.share.man)
