# The adaptive policy and its runtime model.
# Included from tests/CMakeLists.txt, in its order.

# The adaptive policy (default settings): nothing coded on one node; between
# nodes (two emulated by ADACOMP_NODE_MAP) explored, settled and re-explored.
foreach(np 2 4)
  adacomp_mpi_test(model_single_node_np${np} ${np} 300 ENV ADACOMP_THRESHOLD_LOSSLESS=0
                   COMMAND $<TARGET_FILE:test_model> single-node)
endforeach()
# zstd at level 19 makes coding certainly slower than the wire here; T3
# above the test's 512 KiB calls keeps the exploration to raw and zstd whole.
set(SLOW_CODING ADACOMP_LOSSLESS_CODEC=zstd ADACOMP_ZSTD_LEVEL=19 ADACOMP_THRESHOLD_PIPELINE=8M)
adacomp_mpi_test(model_explore_np2 2 300 ENV ADACOMP_NODE_MAP=1,1 ${SLOW_CODING}
                 COMMAND $<TARGET_FILE:test_model> explore)
adacomp_mpi_test(model_explore_np4 4 300 ENV ADACOMP_NODE_MAP=2,2 ${SLOW_CODING}
                 COMMAND $<TARGET_FILE:test_model> explore)
# The lossy codec chosen among candidates (ADACOMP_LOSSY_CODEC=auto, the
# default): flat ring over two nodes, then rails (2+2) with the model's
# verbose lines on.
adacomp_mpi_test(model_codecs_np2 2 300 ENV ADACOMP_NODE_MAP=1,1 ADACOMP_REL_ERROR_BOUND=1e-4
                     ADACOMP_THRESHOLD_PIPELINE=8M
                 COMMAND $<TARGET_FILE:test_model> codecs)
adacomp_mpi_test(model_codecs_np4 4 300 ENV ADACOMP_NODE_MAP=2,2 ADACOMP_REL_ERROR_BOUND=1e-4
                     ADACOMP_THRESHOLD_PIPELINE=8M ADACOMP_VERBOSE=2
                 COMMAND $<TARGET_FILE:test_model> codecs)
# From T3 (the default 256 KiB) whole and chunked forms are arms of their own.
adacomp_mpi_test(model_chunked_np2 2 300 ENV ADACOMP_NODE_MAP=1,1 ADACOMP_VERBOSE=2
                 COMMAND $<TARGET_FILE:test_model> chunked)
adacomp_mpi_test(model_chunked_np4 4 300 ENV ADACOMP_NODE_MAP=2,2
                 COMMAND $<TARGET_FILE:test_model> chunked)
# A calibrated 1 Gbit/s link: the probe at MPI_Init measures this machine's
# shared memory, a fast link on which a sender codes nothing.
adacomp_mpi_test(model_p2p_codecs_np2 2 300 ENV ADACOMP_NODE_MAP=1,1 ADACOMP_INTERSTEP=off
                     ADACOMP_LINK_BANDWIDTH=125e6
                 COMMAND $<TARGET_FILE:test_model> p2p-codecs)
