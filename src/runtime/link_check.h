// The link figure between nodes in use during the run, and its check
// against what the library's own transfers achieve.
//
// MPI_Init sets the figure: calibrated (ADACOMP_LINK_BANDWIDTH), or measured
// by the probe (runtime/link_probe.h). A measured figure can be skewed low by
// a loaded moment, and point-to-point senders would then code where coding
// does not pay. So the receiver of every coded body from another node that
// is large enough to travel by rendezvous (1 MiB, four times the larger of
// the eager limit and 256 KiB) times its receive: beyond what may come with
// the request, the data cannot move before the receive is posted, so
// (bytes - that head) / seconds is a rate the link certainly achieved,
// whatever the load (a lower bound). The
// ranks agree on raising the figure in-band, within the runtime model's
// settlements (coll/plan.cpp record_time: one more value in the MAX that
// already agrees on the settled arm): every rank of the communicator
// leaves the settlement with the same figure, the largest of its ranks'
// figures and achieved rates. A figure is only ever raised: a slow transfer
// may be the peer's or the host's fault, a fast one cannot be a lie.
//
// The figure only weighs point-to-point senders' own coding decisions
// (decision/model.h CodingEstimate), which receivers need not share; no
// collective's path depends on it, and the route class decided at MPI_Init
// (which communicators have point-to-point state) never changes (docs/p2p.md,
// "The link during the run").
#pragma once

#include <mpi.h>

#include <cstddef>

#include "decision/config.h"

namespace adacomp {

// MPI_Init: the figure from calibration or the probe (`measured`).
void link_start(const LinkModel& link, bool measured);
// The figure in use now (thread-safe).
LinkModel link_now();
// What MPI_Init set (the probe's figure when measured).
LinkModel link_at_init();
bool link_measured();

// A coded body of `bytes` from another node took `seconds` from its posted
// receive to its completion. Cheap; ignores what is too small to tell.
void note_link_transfer(size_t bytes, double seconds);
// This rank's best achieved rate (B/s, 0 when none).
double link_achieved();
// The value this rank brings to an agreement: its figure or its best rate,
// whichever is larger (0 when the figure is not a measured one: a
// calibrated figure is the user's and stays).
double link_vote();
// After a MAX over a communicator of link_vote(): every rank of it passes
// the same result, and takes it as its figure if it is larger.
void link_agree(double largest_vote);
// MPI_Finalize, every rank alike (nothing of the application's can be
// pending): the figure the report shows, every rank's check agreed by one
// blocking MAX over MPI_COMM_WORLD, once. Returns whether it ran: the
// allreduce then also serves as a barrier (p2p/bodies_comm.cpp, whose last
// barrier it replaces, saving MPI_Finalize a collective).
bool link_agree_at_finalize();
// Times the figure was raised on this rank.
unsigned link_raises();

}  // namespace adacomp
