// The intercepted completion calls over every kind of request, and the
// blocking point-to-point calls' polled forms (boundary/completion_calls.cpp).
// They sit above both owners of requests: the point-to-point layer
// (p2p/p2p.h, namespace p2p) and the nonblocking collectives (coll/schedule.h).
#pragma once

#include <mpi.h>

#include "decision/call_result.h"

namespace adacomp {

// The Wait and Test families run requests/wait_test.h's loop over every
// request (its decline: PMPI); Start, Request_free and Request_get_status
// ask the engine, then the point-to-point layer.
CallResult wait(MPI_Request* req, MPI_Status* status);
CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]);
CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status);
CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]);
CallResult test(MPI_Request* req, int* flag, MPI_Status* status);
CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]);
CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status);
CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]);
CallResult start(MPI_Request* req);
CallResult request_free(MPI_Request* req);
CallResult request_get_status(MPI_Request req, int* flag, MPI_Status* status);
CallResult startall(int n, MPI_Request reqs[]);

// The blocking point-to-point calls while nonblocking collectives are
// outstanding (mpi_calls.txt flag `polled`): the call's nonblocking form
// completed by the polling wait (the probes: an Iprobe loop), so a
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
