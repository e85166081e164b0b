# Which MPI this build is for, read from the mpi.h it compiles against:
#   ADACOMP_MPI_FLAVOR  the build's name, one per MPI ABI a site may run,
#                       so that any two install side by side
#                       (libadacomp-<flavour>.so, adacomp-<flavour>,
#                       adacomp-<flavour>.pc, AdaComp::<flavour>, modules,
#                       adacomp-<flavour>.conf):
#                         openmpi   Open MPI 4 (and 3: libmpi.so.40)
#                         openmpi5  Open MPI 5 (same soname, other ABI)
#                         mpich     MPICH (3.1+), MVAPICH, Cray MPICH
#                         impi      Intel MPI
#                         mpiabi    the MPI-5 standard ABI (mpicc_abi,
#                                   libmpi_abi.so): any MPI that provides it
#   ADACOMP_MPI_FAMILY  openmpi | mpich | mpiabi: launcher flags and the
#                       library sonames a program of this ABI links
#   ADACOMP_MPI_NAME    as its vendor names it, e.g. "Open MPI 5.0.11",
#                       "MPICH 5.0.2", "Intel(R) MPI 2021.16.1", "MPI ABI 1.0"
#                       (--version, banner, report, the wrong-MPI check)
# Every flavour there is: the others' modules conflict with this one's.
set(ADACOMP_MPI_FLAVORS openmpi openmpi5 mpich impi mpiabi)
include(CheckCSourceCompiles)
find_file(ADACOMP_MPI_H mpi.h PATHS ${MPI_C_INCLUDE_DIRS} ${MPI_C_HEADER_DIR} NO_DEFAULT_PATH)
if(NOT ADACOMP_MPI_H)
  message(FATAL_ERROR "AdaComp: cannot find mpi.h in '${MPI_C_INCLUDE_DIRS}'")
endif()
# The ABI is chosen by the wrapper (mpicc_abi: -DMPI_ABI), not by the header
# alone, hence compiled rather than read.
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_c_source_compiles("#include <mpi.h>
#ifndef MPI_ABI_VERSION
#error not the standard ABI
#endif
int main(void) { return 0; }" ADACOMP_MPI_STANDARD_ABI)
unset(CMAKE_REQUIRED_LIBRARIES)
function(adacomp_mpi_define name out)
  file(STRINGS ${ADACOMP_MPI_H} _line REGEX "^#define ${name} ")
  string(REGEX REPLACE "^#define ${name} +\"?([^\" ]*)\"?.*" "\\1" _value "${_line}")
  set(${out} "${_value}" PARENT_SCOPE)
endfunction()
adacomp_mpi_define(OMPI_MAJOR_VERSION _ompi_major)
adacomp_mpi_define(I_MPI_VERSION _impi)
adacomp_mpi_define(MPICH_VERSION _mpich)
if(ADACOMP_MPI_STANDARD_ABI)
  adacomp_mpi_define(MPI_ABI_VERSION _abi_major)
  adacomp_mpi_define(MPI_ABI_SUBVERSION _abi_minor)
  if(_abi_major STREQUAL "")  # the definitions sit in mpi_abi.h
    get_filename_component(_dir ${ADACOMP_MPI_H} DIRECTORY)
    set(ADACOMP_MPI_H ${_dir}/mpi_abi.h)
    adacomp_mpi_define(MPI_ABI_VERSION _abi_major)
    adacomp_mpi_define(MPI_ABI_SUBVERSION _abi_minor)
  endif()
  set(ADACOMP_MPI_FLAVOR mpiabi)
  set(ADACOMP_MPI_FAMILY mpiabi)
  set(ADACOMP_MPI_NAME "MPI ABI ${_abi_major}.${_abi_minor}")
elseif(NOT _ompi_major STREQUAL "")
  adacomp_mpi_define(OMPI_MINOR_VERSION _minor)
  adacomp_mpi_define(OMPI_RELEASE_VERSION _release)
  set(ADACOMP_MPI_FLAVOR openmpi)
  if(_ompi_major GREATER_EQUAL 5)
    set(ADACOMP_MPI_FLAVOR openmpi${_ompi_major})
  endif()
  set(ADACOMP_MPI_FAMILY openmpi)
  set(ADACOMP_MPI_NAME "Open MPI ${_ompi_major}.${_minor}.${_release}")
elseif(NOT _impi STREQUAL "")
  set(ADACOMP_MPI_FLAVOR impi)
  set(ADACOMP_MPI_FAMILY mpich)
  set(ADACOMP_MPI_NAME "Intel(R) MPI ${_impi}")
elseif(NOT _mpich STREQUAL "")
  set(ADACOMP_MPI_FLAVOR mpich)
  set(ADACOMP_MPI_FAMILY mpich)
  set(ADACOMP_MPI_NAME "MPICH ${_mpich}")
else()
  message(FATAL_ERROR "AdaComp: ${ADACOMP_MPI_H} is none of Open MPI, MPICH, Intel MPI or the "
                      "MPI-5 standard ABI")
endif()
# The other flavours' modules, space-separated (a Tcl conflict line).
set(ADACOMP_MPI_OTHER_MODULES "")
foreach(_f ${ADACOMP_MPI_FLAVORS})
  if(NOT _f STREQUAL ADACOMP_MPI_FLAVOR)
    set(ADACOMP_MPI_OTHER_MODULES "${ADACOMP_MPI_OTHER_MODULES} adacomp-${_f}")
  endif()
endforeach()
string(STRIP "${ADACOMP_MPI_OTHER_MODULES}" ADACOMP_MPI_OTHER_MODULES)
message(STATUS "AdaComp: built for ${ADACOMP_MPI_NAME} (${ADACOMP_MPI_FLAVOR}), launcher ${MPIEXEC_EXECUTABLE}")
