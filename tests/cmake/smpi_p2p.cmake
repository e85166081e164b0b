# Point-to-point on the simulated InfiniBand HDR fabric (200 Gbit/s, 1 us;
# bench/scale/p2p_sweep.sh, docs/scale.md), 2 x 1, default settings against
# plain MPI, taking turns. Simulated time: the library's CPU work per call
# is charged (simulate.sh's smpi/cpu-threshold 0).
set(P2P_SWEEP ${CMAKE_SOURCE_DIR}/bench/scale/p2p_sweep.sh)
set(P2P_SAMPLES "OSU_ARGS=--samples 5 --sample-time 0.005")
# The 1 us check: the library with 1 us of spinning at the start of each of
# its PMPI_Send and PMPI_Recv calls (adacomp-osu-spin) is 1 us +- 0.25 us
# slower per half round trip, so the simulated clock charges work done
# inside the library's calls.
add_test(NAME smpi_p2p_calibration COMMAND ${P2P_SWEEP} --calibrate)
# The target of every cell: small-message latency within 0.3 us of plain
# MPI's, larger latency and bandwidth at least 0.97x (bench/osu_summary.py).
add_test(NAME smpi_p2p_hdr_target COMMAND ${P2P_SWEEP} ${CMAKE_BINARY_DIR}/smpi-p2p-check)
set_tests_properties(smpi_p2p_calibration smpi_p2p_hdr_target PROPERTIES
                     TIMEOUT 180 LABELS smpi RUN_SERIAL TRUE)
set_tests_properties(smpi_p2p_calibration PROPERTIES
                     ENVIRONMENT "BUILD=${CMAKE_BINARY_DIR};REPS=2;${P2P_SAMPLES}")
set_tests_properties(smpi_p2p_hdr_target PROPERTIES
                     ENVIRONMENT "BUILD=${CMAKE_BINARY_DIR};FABRICS=hdr;LAYOUTS=2x1;TESTS=latency,bw;MAX=1M;SIZES=1,64,512;OSU_ARGS=--min 1M --samples 5 --sample-time 0.005;CHECK=1;PLOTS=none")
