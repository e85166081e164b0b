// The link between nodes, measured at MPI_Init when the job spans nodes and
// no calibration gave it: the first two nodes' leaders time a ping-pong on
// the library's private communicator and every rank receives the result.
// Point-to-point senders weigh coding against it (policy/model.h).
#pragma once

#include <mpi.h>

#include "policy/config.h"
#include "runtime/comm_state.h"

namespace adacomp {

// Collective over the world state's private communicator.
LinkModel probe_inter_node_link(const CommState& world);

}  // namespace adacomp
