// The link between nodes, measured at MPI_Init when the job spans nodes and
// no calibration gave it: the leaders of nodes 2k and 2k+1 time ping-pongs on
// the library's private communicator (medians of several samples); a pair's
// figure is the lower of its two ends' readings, and every rank takes the
// median over the pairs, so all agree and one skewed measurement does not
// decide (a low one, on one or two pairs, is raised during the run:
// runtime/link_check.h).
// Point-to-point senders weigh coding against it (policy/model.h).
#pragma once

#include <mpi.h>

#include "policy/config.h"
#include "runtime/comm_state.h"

namespace adacomp {

// Collective over the world state's private communicator. `c` may name a
// node whose leader's reading is scaled (ADACOMP_LINK_PROBE_OUTLIER, tests).
LinkModel probe_inter_node_link(const CommState& world, const Config& c);

}  // namespace adacomp
