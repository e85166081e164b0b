# Point-to-point on the simulated InfiniBand HDR fabric (200 Gbit/s, 1 us;
# bench/scale/p2p_sweep.sh, docs/scale.md), 2 x 1, taking turns run by
# run. Simulated time, with the library's CPU work per call charged
# (simulate.sh's smpi/cpu-threshold 0). 12-30 s each, by the load of the machine.
set(P2P_SWEEP ${CMAKE_SOURCE_DIR}/bench/scale/p2p_sweep.sh)
# The 1 us check: the library with 1 us of spinning at the start of each of
# its PMPI_Send and PMPI_Recv calls (adacomp-osu-spin) is 1 us +- 0.25 us
# slower per half round trip than the library alone, at 1 B to 64 KB (median
# of 5 runs each: the runs without the spin vary by about 0.1 us): the
# simulated clock charges work done inside the library's calls.
add_test(NAME smpi_p2p_calibration COMMAND ${P2P_SWEEP} --calibrate)
# The target, default settings against plain MPI: latency at 1, 64 and
# 512 B within 0.3 us, at 1 MB at least 0.97x (bench/osu_summary.py). Small
# messages' bandwidth is left to the sweep: the spread of SMPI's timer there
# is wider than 3% (docs/scale.md, "Codec time"). With LIBRARY=adacomp-osu-spin
# (1 us more per call) this check fails.
add_test(NAME smpi_p2p_hdr_target COMMAND ${P2P_SWEEP} ${CMAKE_BINARY_DIR}/smpi-p2p-check)
set_tests_properties(smpi_p2p_calibration smpi_p2p_hdr_target PROPERTIES
                     TIMEOUT 180 LABELS smpi RUN_SERIAL TRUE)
set_tests_properties(smpi_p2p_calibration PROPERTIES ENVIRONMENT
                     "BUILD=${CMAKE_BINARY_DIR};REPS=5;OSU_ARGS=--samples 5 --sample-time 0.002")
set_tests_properties(smpi_p2p_hdr_target PROPERTIES ENVIRONMENT
                     "BUILD=${CMAKE_BINARY_DIR};FABRICS=hdr;LAYOUTS=2x1;TESTS=latency;MAX=1M;SIZES=1,64,512;OSU_ARGS=--min 1M --samples 3 --sample-time 0.002;CHECK=1;PLOTS=none")
