# Lossy coding: the bound on the final result, the reduction on codes, the truncation codecs.
# Included from tests/CMakeLists.txt, in its order.

# Lossy: the bound holds on the final result at every rank count, in the
# plain lossy tier and pipelined, with both lossy codecs.
foreach(np 2 3 4 8)
  adacomp_mpi_test(lossy_abs_np${np} ${np} 300
                   ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                   COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
  adacomp_mpi_test(lossy_rel_pipelined_np${np} ${np} 300
                   ENV ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=5
                       ADACOMP_THRESHOLD_PIPELINE=0 ADACOMP_REL_ERROR_BOUND=1e-4
                   COMMAND $<TARGET_FILE:test_lossy> rel 1e-4)
endforeach()
# ADACOMP_THREADS: segmented frames, lossless and lossy (decode-add-encode
# ring, and the reduction on codes, which codes single-threaded), on every
# rank or only some: the thread count is the sender's and travels in-band.
adacomp_mpi_test(coding_threads_lossless_np3 3 300
                 ENV ${FORCE_COMPRESSION} ADACOMP_THREADS=3 ADACOMP_INTERSTEP=off
                 COMMAND $<TARGET_FILE:test_coding_threads> lossless)
adacomp_mpi_test(coding_threads_lossy_np3 3 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     ADACOMP_REDUCE_ON_CODES=off ADACOMP_THREADS=3
                 COMMAND $<TARGET_FILE:test_coding_threads> lossy 1e-3)
adacomp_mpi_test(coding_threads_lossy_codes_np2 2 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     ADACOMP_THREADS=4
                 COMMAND $<TARGET_FILE:test_coding_threads> lossy 1e-3)
foreach(kind lossless lossy)
  set(args ${kind})
  set(envs ${FORCE_COMPRESSION} ADACOMP_INTERSTEP=off)
  if(kind STREQUAL "lossy")
    set(args lossy 1e-3)
    set(envs ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
             ADACOMP_REDUCE_ON_CODES=off)
  endif()
  add_test(NAME coding_threads_mixed_${kind}_np3
           COMMAND ${ADACOMP_MPIEXEC} ${ADACOMP_MPIEXEC_FLAGS}
                   ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_THREADS=1
                       $<TARGET_FILE:test_coding_threads> ${args} :
                   ${MPIEXEC_NUMPROC_FLAG} 2 env ADACOMP_THREADS=3
                       $<TARGET_FILE:test_coding_threads> ${args})
  set_tests_properties(coding_threads_mixed_${kind}_np3 PROPERTIES TIMEOUT 300 LABELS mpi
                       ENVIRONMENT "${envs}")
endforeach()

# Lossy SUM on float/double reduced on quantisation codes (issue 13; the
# Reduce_scatter's, blocking and nonblocking, issue 26): the exact result of
# the codes path, its bound, the cases it declines.
add_executable(test_codes_ring mpi/codes_ring.cpp)
target_link_libraries(test_codes_ring PRIVATE adacomp adacomp_codec MPI::MPI_C)
set(CODES_LOSSY ${NONBLOCKING_ON} ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0
                ADACOMP_ERROR_BOUND=1e-3)
foreach(np 2 3 4 8)
  adacomp_mpi_test(codes_ring_abs_np${np} ${np} 300
                   ENV ${CODES_LOSSY} COMMAND $<TARGET_FILE:test_codes_ring> abs 1e-3)
  # A known link lets each sender choose its chunks' form by speed
  # (decision/form_choice.h), planes first then zstd: both forms in one ring.
  adacomp_mpi_test(codes_ring_rel_np${np} ${np} 300
                   ENV ${NO_MODEL} ${NONBLOCKING_ON} ADACOMP_MODE=pipelined
                       ADACOMP_PIPELINE_CHUNKS=3 ADACOMP_THRESHOLD_PIPELINE=0
                       ADACOMP_REL_ERROR_BOUND=1e-4 ADACOMP_LINK_BANDWIDTH=1.25e9
                   COMMAND $<TARGET_FILE:test_codes_ring> rel 1e-4)
endforeach()
foreach(layout "4;2,2;auto" "3;1,2;auto" "4;2,2;leaders")
  list(GET layout 0 np)
  list(GET layout 1 map)
  list(GET layout 2 hier)
  string(REPLACE "," "_" tag "${map}")
  adacomp_mpi_test(codes_ring_nodes_${tag}_${hier} ${np} 300
                   ENV ${CODES_LOSSY} ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_codes_ring> abs 1e-3 nodes)
  adacomp_mpi_test(codes_ring_nodes_segmented_${tag}_${hier} ${np} 300
                   ENV ${SEGMENTED} ${NONBLOCKING_ON} ADACOMP_ERROR_BOUND=1e-3
                       ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_codes_ring> abs 1e-3 nodes)
endforeach()
adacomp_mpi_test(codes_ring_off_np3 3 300
                 ENV ${CODES_LOSSY} ADACOMP_REDUCE_ON_CODES=off
                 COMMAND $<TARGET_FILE:test_codes_ring> abs 1e-3 off)
# Today's decode-add-encode ring for the Allreduce SUM too, with each lossy codec.
adacomp_mpi_test(lossy_abs_decode_add_encode_np3 3 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     ADACOMP_REDUCE_ON_CODES=off
                 COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
foreach(codec quant quant_fast quant_zstd)
  adacomp_mpi_test(lossy_${codec}_np3 3 300
                   ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                       ADACOMP_LOSSY_CODEC=${codec} ADACOMP_REDUCE_ON_CODES=off
                   COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
endforeach()
adacomp_mpi_test(lossy_zfp_np3 3 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-2
                     ADACOMP_LOSSY_CODEC=zfp ADACOMP_REDUCE_ON_CODES=off
                 COMMAND $<TARGET_FILE:test_lossy> abs 1e-2)
# The truncation codecs as the documented lossy choice: the bound holds end
# to end; they save about half of a double (to_f32 sends floats stored).
adacomp_mpi_test(lossy_truncate_np3 3 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     ADACOMP_LOSSY_CODEC=truncate
                 COMMAND $<TARGET_FILE:test_lossy> abs 1e-3 1.8 1.05)
adacomp_mpi_test(lossy_to_f32_np3 3 300
                 ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     ADACOMP_LOSSY_CODEC=to_f32
                 COMMAND $<TARGET_FILE:test_lossy> abs 1e-3 1.9 0)
