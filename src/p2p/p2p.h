// Point-to-point compression. See docs/p2p.md for the wire convention.
// Each implementation of an intercepted call returns a return code, or
// kDeclined before touching any buffer: its entry point then calls PMPI with
// the same arguments (decision/call_result.h). MPI_Mrecv and MPI_Imrecv never
// decline (a message handle may be the library's).
#pragma once

#include <mpi.h>

#include <atomic>

#include "decision/call_result.h"
#include "runtime/mpi_abi.h"

namespace adacomp {

namespace detail {
extern std::atomic<bool> g_p2p_on;
}  // namespace detail
// Whether point-to-point runs at all (p2p_init): off, every point-to-point
// call passes to MPI untouched (p2p/comm_setup.cpp p2p_of).
inline bool p2p_engaged() { return detail::g_p2p_on.load(std::memory_order_acquire); }

// Point-to-point's part of an application communicator's state (no
// communicator of its own). Made only where every member is present:
// MPI_COMM_WORLD and MPI_COMM_SELF at init, new communicators in the
// intercepted constructors.
void p2p_init();                 // after runtime_start
void p2p_finalize();             // before runtime_stop
void p2p_attach(MPI_Comm comm);  // collective over comm; no-op when off

CallResult send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
CallResult ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
CallResult rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
CallResult bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
CallResult isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 MPI_Request* req);
CallResult issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req);
CallResult irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req);
CallResult ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req);
CallResult send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request* req);
CallResult ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req);
CallResult rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req);
CallResult bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req);
CallResult recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status* status);
CallResult irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request* req);
CallResult recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* req);
CallResult sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status* status);
CallResult sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status);
CallResult probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
CallResult iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
CallResult mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status);
CallResult improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* msg,
                   MPI_Status* status);
CallResult mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status);
CallResult imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req);
// Fortran <-> C message handles for the Fortran entry points: the library's
// own messages through its table, any other handle through MPI's c2f/f2c.
MPI_Fint message_c2f(MPI_Message msg);
MPI_Message message_f2c(MPI_Fint msg);

// Over the library's point-to-point requests; any other request is
// declined. The intercepted calls (boundary/completion_calls.cpp) combine these
// with the nonblocking collectives' requests; the Wait and Test families are
// requests/wait_test.h's, over every library request.
namespace p2p {
CallResult start(MPI_Request* req);
CallResult request_free(MPI_Request* req);
CallResult request_get_status(MPI_Request req, int* flag, MPI_Status* status);
}  // namespace p2p

// PMPI, then the handler's fatality as the small receives see it.
CallResult comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
// Communicator constructors: PMPI, then the new communicator's p2p state.
CallResult comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
CallResult comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm);
// The lossy hints of `info` (runtime/comm_hints.h): agreed and kept by the
// library, as well as passed to PMPI.
CallResult comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                               MPI_Request* request);
CallResult comm_set_info(MPI_Comm comm, MPI_Info info);
CallResult comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
CallResult comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                           MPI_Comm* newcomm);
CallResult comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
CallResult comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm);
CallResult cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                       MPI_Comm* newcomm);
CallResult cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm);
CallResult graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                        int reorder, MPI_Comm* newcomm);
CallResult dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info,
                             int reorder, MPI_Comm* newcomm);
CallResult dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                      const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm* newcomm);
CallResult intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm);

#if MPI_VERSION >= 4
// MPI-4 Isendrecv(_replace) (p2p/isendrecv.cpp). The large-count (_c)
// forms of these calls are the generated entries' (boundary/entry.h
// with_count).
CallResult isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                     int recvtag, MPI_Comm comm, MPI_Request* request);
CallResult isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request* request);
#endif

}  // namespace adacomp
