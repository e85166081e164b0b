# Point-to-point layouts and pipelining.
# Included from tests/CMakeLists.txt, in its order.

# Point-to-point where some peers share a node (never coded to them) and
# where every peer is on another node.
adacomp_mpi_test(p2p_nodes_2_2 4 300 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=2,2
                 COMMAND $<TARGET_FILE:test_p2p> --mixed)
adacomp_mpi_test(p2p_nodes_1_1_1 3 300 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=1,1,1
                 COMMAND $<TARGET_FILE:test_p2p>)
adacomp_mpi_test(p2p_interstep_nodes_1_1_1 3 300 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=1,1,1
                 COMMAND $<TARGET_FILE:test_p2p_interstep>)
adacomp_mpi_test(gather_nodes_2_2 4 300 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=2,2
                 COMMAND $<TARGET_FILE:test_gather> ${OVERSUBSCRIBED_ARGS})
# Pipelining: odd chunk counts, and many small chunks of a fixed size.
adacomp_mpi_test(collectives_pipelined_np3 3 600
                 ENV ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=3
                 COMMAND $<TARGET_FILE:test_collectives> ${OVERSUBSCRIBED_ARGS})
adacomp_mpi_test(collectives_pipelined_4k_np2 2 600
                 ENV ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNK_BYTES=4K
                 COMMAND $<TARGET_FILE:test_collectives>)
# Eager-sized chunks (the default chunking), made many and small: Open MPI
# is told an eager limit of 8K, which the library reads from its variable
# registry; MPICH (no such variable over UCX) takes the 64K default.
foreach(np 2 3 4)
  set(eager ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_THRESHOLD_PIPELINE=0
            OMPI_MCA_btl_tcp_eager_limit=8192)
  adacomp_mpi_test(pipeline_eager_lossless_np${np} ${np} 300 ENV ${eager}
                   COMMAND $<TARGET_FILE:test_pipeline_eager> lossless)
  adacomp_mpi_test(pipeline_eager_lossy_np${np} ${np} 300 ENV ${eager} ADACOMP_ERROR_BOUND=1e-3
                   COMMAND $<TARGET_FILE:test_pipeline_eager> lossy 1e-3)
endforeach()
