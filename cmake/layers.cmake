# Each directory of src/ is one layer and one library. A layer's include
# path holds its own headers and those of the layers it is linked to, and
# nothing else: including a header from a layer above fails to compile, so
# the build itself checks the layering (docs/design.md).
#
#   codec <- wire <- decision <- requests <- runtime <- report <- transfer <- coll, p2p <- boundary
#
# Each folder answers one question: codec, how bytes are coded; wire, what
# a frame looks like; decision, whether and how a call is coded (MPI-free);
# requests, which requests are the library's and how Wait and Test complete
# them; runtime, what the library knows of the process, its communicators,
# datatypes and the link; report, what was counted and what it says;
# transfer, one payload to a frame and back, on the coding threads; coll and
# p2p, the collectives and point-to-point; boundary, the MPI entry points.
#
# The include root of layer X is build/layers/X, holding one link X -> src/X,
# so sources keep naming headers "X/name.h".
function(adacomp_layer name)
  cmake_parse_arguments(L "" "" "DEPENDS;EXCLUDE" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  # A new source file in a layer's directory is picked up on the next build.
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${name}/*.cpp)
  foreach(skip ${L_EXCLUDE})
    list(REMOVE_ITEM sources ${CMAKE_SOURCE_DIR}/src/${name}/${skip})
  endforeach()
  add_library(adacomp_${name} OBJECT ${sources})
  target_include_directories(adacomp_${name} PUBLIC $<BUILD_INTERFACE:${root}>)
  target_link_libraries(adacomp_${name} PUBLIC ${L_DEPENDS})
  set_target_properties(adacomp_${name} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                                   VISIBILITY_INLINES_HIDDEN ON
                                                   POSITION_INDEPENDENT_CODE ON)
endfunction()
