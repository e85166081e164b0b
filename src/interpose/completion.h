// The intercepted completion calls over every kind of request, and the
// blocking point-to-point calls' polled forms (interpose/completion.cpp).
// They sit above both owners of requests: the point-to-point layer
// (p2p/p2p.h, namespace p2p) and the nonblocking collectives (coll/schedule.h).
#pragma once

#include <mpi.h>

#include "p2p/p2p.h"
#include "runtime/call_result.h"

namespace adacomp {

// While the engine is involved (coll/schedule.h collectives_involved) a wait
// polls: the engine advanced and one Test-form pass over the array, until
// done, so a rank waiting on anything keeps advancing the schedules its peers
// may need. Otherwise the point-to-point form runs alone (its decline: PMPI).
// The family is declared with the point-to-point forms' (p2p/p2p.h).
ADACOMP_COMPLETION_FAMILY
CallResult startall(int n, MPI_Request reqs[]);

// The blocking point-to-point calls while nonblocking collectives are
// outstanding (mpi_calls.txt flag `polled`): the call's nonblocking form
// completed by the polling wait above (the probes: an Iprobe loop), so a
// rank blocked in one still advances its schedules.
namespace polled {
int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status);
int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status);
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status);
int mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status);
}  // namespace polled

}  // namespace adacomp
