# Each directory of src/ is one layer and one library, except frames/, which
# holds the three layers that make and read what goes on the wire: its
# codecs and the frame format sit below the decision, the transfer of a
# payload to frames above the report. A layer's include path holds its own
# headers and those of the layers it is linked to, and nothing else:
# including a header from a layer above fails to compile, so the build
# itself checks the layering (docs/design.md).
#
#   frames/codec <- frames/wire <- decision <- runtime <- requests <- report
#     <- frames/transfer <- coll, p2p <- boundary
#
# Each folder answers one question: frames, how a payload becomes bytes on
# the wire and back (codec, how bytes are coded; wire, what a frame looks
# like; transfer, one payload to a frame and back, on the coding threads);
# decision, whether and how a call is coded (MPI-free); runtime, what the
# library knows of the process, its communicators, datatypes and the link;
# requests, which requests are the library's and how Wait and Test complete
# them; report, what was counted and what it says; coll and p2p, the
# collectives and point-to-point; boundary, the MPI entry points.
#
# The include root of layer X is build/layers/X, holding one link X -> its
# directory (src/X, or src/IN/X with IN), so sources keep naming headers
# "X/name.h".
function(adacomp_layer name)
  cmake_parse_arguments(L "" "IN" "DEPENDS;EXCLUDE" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  set(dir ${CMAKE_SOURCE_DIR}/src/${name})
  if(L_IN)
    set(dir ${CMAKE_SOURCE_DIR}/src/${L_IN}/${name})
  endif()
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${dir} ${root}/${name} SYMBOLIC)
  # A new source file in a layer's directory is picked up on the next build.
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  foreach(skip ${L_EXCLUDE})
    list(REMOVE_ITEM sources ${dir}/${skip})
  endforeach()
  add_library(adacomp_${name} OBJECT ${sources})
  target_include_directories(adacomp_${name} PUBLIC $<BUILD_INTERFACE:${root}>)
  target_link_libraries(adacomp_${name} PUBLIC ${L_DEPENDS})
  set_target_properties(adacomp_${name} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                                   VISIBILITY_INLINES_HIDDEN ON
                                                   POSITION_INDEPENDENT_CODE ON)
endfunction()
