// The link between nodes, measured at MPI_Init when the job spans nodes and
// no calibration gave it: the leaders of nodes 2k and 2k+1 time ping-pongs
// (medians of several samples, and the fastest for the route); a pair's
// figure is the lower of its two ends' readings, and every rank takes the
// median over the pairs, so all agree and one skewed measurement does not
// decide (a low one, on one or two pairs, is raised during the run:
// runtime/link_check.h).
// Point-to-point senders weigh coding against it (decision/model.h).
#pragma once

#include <mpi.h>

#include "decision/config.h"
#include "runtime/locality.h"

namespace adacomp {

// Collective over MPI_COMM_WORLD itself, during MPI_Init only (as the
// agreement, boundary/start.cpp agree: nothing of the application's can be in
// flight yet, and a private communicator would first cost a collective of
// its own: 35-60 ms each between two emulated nodes, Open MPI). `world` is
// MPI_COMM_WORLD's layout. `c` may name a node whose leader's reading is
// scaled (ADACOMP_LINK_PROBE_OUTLIER, tests).
struct ProbeReading {
  LinkModel link;           // the median transfer's rate: senders weigh coding against it
  double fastest_Bps = 0;   // the fastest transfer's: the route's (decision/model.h)
};
ProbeReading probe_inter_node_link(const Locality& world, const Config& c);

}  // namespace adacomp
