# Install rules. Everything MPI-specific carries ${ADACOMP_SUFFIX}
# (-openmpi, -openmpi5, -mpich, -impi, -mpiabi) so that any builds can share one prefix; the rest
# (header, docs, man pages, CMake package entry) is identical in both.
include(CMakePackageConfigHelpers)
set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/AdaComp)

set_target_properties(adacomp PROPERTIES EXPORT_NAME adacomp${ADACOMP_SUFFIX})
install(TARGETS adacomp EXPORT AdaCompTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/adacomp.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/adacomp${ADACOMP_SUFFIX}
        ${CMAKE_SOURCE_DIR}/tools/adacomp-report
        DESTINATION ${CMAKE_INSTALL_BINDIR})
# adacomp-report's modules, where the script looks for them (bin/../share/adacomp/python).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tools/adacomp_report DESTINATION ${CMAKE_INSTALL_DATADIR}/adacomp/python
        FILES_MATCHING PATTERN "*.py")
set(_programs adacomp-calibrate adacomp-codecs)
install(TARGETS ${_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# What an install copies, built alone by tools/install.sh: not the tests,
# demo and benchmarks that `all` builds.
add_custom_target(adacomp_installed)
add_dependencies(adacomp_installed adacomp ${_programs})

# CMake: find_package(AdaComp [COMPONENTS <flavour>]) -> AdaComp::adacomp.
install(EXPORT AdaCompTargets NAMESPACE AdaComp::
        FILE AdaCompTargets${ADACOMP_SUFFIX}.cmake DESTINATION ${_cmakedir})
configure_package_config_file(packaging/cmake/AdaCompConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/AdaCompConfig.cmake INSTALL_DESTINATION ${_cmakedir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/AdaCompConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/AdaCompConfig.cmake
              ${CMAKE_BINARY_DIR}/install/AdaCompConfigVersion.cmake
        DESTINATION ${_cmakedir})

# pkg-config: adacomp-openmpi.pc / adacomp-mpich.pc (adacomp.pc: the default).
# Paths relative to the file itself: `cmake --install --prefix` and moved
# trees keep working.
file(RELATIVE_PATH ADACOMP_PREFIX_FROM_PC ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
file(RELATIVE_PATH ADACOMP_PREFIX_FROM_MODULE ${CMAKE_INSTALL_FULL_DATADIR}/adacomp/modulefiles
     ${CMAKE_INSTALL_PREFIX})
configure_file(packaging/pkgconfig/adacomp.pc.in
               ${CMAKE_BINARY_DIR}/install/adacomp${ADACOMP_SUFFIX}.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/adacomp${ADACOMP_SUFFIX}.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Environment modules (Lmod and Tcl): one text of each kind for both formats.
# They refuse to load without this build's MPI launcher, and conflict with
# the other MPI's module.
set(ADACOMP_MODULE_WHATIS
    "AdaComp ${PROJECT_VERSION}: transparent compression of MPI messages, built for ${ADACOMP_MPI_NAME}")
set(ADACOMP_MODULE_HELP "${ADACOMP_MODULE_WHATIS}.
  mpirun -np N adacomp${ADACOMP_SUFFIX} ./app   run a program with it
  adacomp-calibrate${ADACOMP_SUFFIX}            measure the network, write settings
Settings: PREFIX/etc/adacomp.conf, PREFIX/etc/adacomp${ADACOMP_SUFFIX}.conf (this MPI),
./adacomp.conf, ADACOMP_* variables. Manuals: man adacomp, man adacomp.conf")
set(ADACOMP_MODULE_NO_MPI "adacomp${ADACOMP_SUFFIX} is built for ${ADACOMP_MPI_NAME}, and its \
launcher ${MPIEXEC_EXECUTABLE} is not there: install that MPI, or load \
the module of the MPI you run (${ADACOMP_MPI_OTHER_MODULES})")
configure_file(packaging/modules/adacomp.lua.in
               ${CMAKE_BINARY_DIR}/install/modulefiles/adacomp${ADACOMP_SUFFIX}.lua @ONLY)
configure_file(packaging/modules/adacomp.tcl.in
               ${CMAKE_BINARY_DIR}/install/modulefiles/adacomp${ADACOMP_SUFFIX} @ONLY)
install(DIRECTORY ${CMAKE_BINARY_DIR}/install/modulefiles/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/adacomp/modulefiles)

# The docs keep the source tree's layout (README.md beside docs/, with its
# images and the data its tables come from), so their relative links work
# in the installed tree (install_check.sh resolves them).
install(FILES README.md LICENSE CHANGELOG.md packaging/adacomp.conf.example
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/adacomp)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/adacomp/docs)
install(FILES man/adacomp.1 man/adacomp-calibrate.1 man/adacomp-codecs.1 man/adacomp-report.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/adacomp.conf.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)

# Flavoured names: man pages that point at the common ones; with
# ADACOMP_DEFAULT_NAMES, plain names that point at this build.
set(_links ${CMAKE_BINARY_DIR}/install/links)
file(MAKE_DIRECTORY ${_links}/man1 ${_links}/bin ${_links}/lib ${_links}/pc ${_links}/cmake)
foreach(tool adacomp adacomp-calibrate)
  file(WRITE ${_links}/man1/${tool}${ADACOMP_SUFFIX}.1 ".so man1/${tool}.1\n")
  install(FILES ${_links}/man1/${tool}${ADACOMP_SUFFIX}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()
if(ADACOMP_DEFAULT_NAMES)
  foreach(tool adacomp adacomp-calibrate)
    file(CREATE_LINK ${tool}${ADACOMP_SUFFIX} ${_links}/bin/${tool} SYMBOLIC)
    install(FILES ${_links}/bin/${tool} DESTINATION ${CMAKE_INSTALL_BINDIR})
  endforeach()
  file(CREATE_LINK libadacomp${ADACOMP_SUFFIX}.so ${_links}/lib/libadacomp.so SYMBOLIC)
  install(FILES ${_links}/lib/libadacomp.so DESTINATION ${CMAKE_INSTALL_LIBDIR})
  file(CREATE_LINK adacomp${ADACOMP_SUFFIX}.pc ${_links}/pc/adacomp.pc SYMBOLIC)
  install(FILES ${_links}/pc/adacomp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  file(WRITE ${_links}/cmake/AdaCompDefault.cmake "set(AdaComp_DEFAULT_MPI ${ADACOMP_MPI_FLAVOR})\n")
  install(FILES ${_links}/cmake/AdaCompDefault.cmake DESTINATION ${_cmakedir})
endif()
