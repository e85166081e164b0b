// Point-to-point compression. See docs/p2p.md for the wire convention.
#pragma once

#include <mpi.h>

namespace adacomp {

// Private point-to-point communicator of an application communicator.
// Created only where every member is present: MPI_COMM_WORLD and
// MPI_COMM_SELF at init, new communicators in the intercepted constructors.
void p2p_init();      // after runtime_start
void p2p_finalize();  // before runtime_stop
void p2p_attach(MPI_Comm comm);  // collective over comm; no-op when off

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* req);
int issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req);
int irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req);
int ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req);
int send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
              MPI_Comm comm, MPI_Request* req);
int ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req);
int rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req);
int bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req);
int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status);
int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* req);
int recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* req);
int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
             int recvtag, MPI_Comm comm, MPI_Status* status);
int sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                     int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status);
int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status);
int improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* msg,
            MPI_Status* status);
int mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status);
int imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req);
// Fortran <-> C message handles for the Fortran entry points: the library's
// own messages through its table, any other handle through MPI's c2f/f2c.
MPI_Fint message_c2f(MPI_Message msg);
MPI_Message message_f2c(MPI_Fint msg);

int wait(MPI_Request* req, MPI_Status* status);
int waitall(int n, MPI_Request reqs[], MPI_Status statuses[]);
int waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status);
int waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]);
int test(MPI_Request* req, int* flag, MPI_Status* status);
int testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]);
int testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status);
int testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]);
int start(MPI_Request* req);
int startall(int n, MPI_Request reqs[]);
int request_free(MPI_Request* req);
int request_get_status(MPI_Request req, int* flag, MPI_Status* status);

// Communicator constructors: PMPI, then the new communicator's p2p state.
int comm_dup(MPI_Comm comm, MPI_Comm* newcomm);
int comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm);
int comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm);
int comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm);
int comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm);
int comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm);
int cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* newcomm);
int cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm);
int graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                 MPI_Comm* newcomm);
int dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                      const int destinations[], const int weights[], MPI_Info info,
                      int reorder, MPI_Comm* newcomm);
int dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                               const int sourceweights[], int outdegree,
                               const int destinations[], const int destweights[],
                               MPI_Info info, int reorder, MPI_Comm* newcomm);
int intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm);

#if MPI_VERSION >= 4
// MPI-4 variants (src/interpose/mpi_calls.txt).
int send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
int isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request* request);
int recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status);
int irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request);
int recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request);
int mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status);
int imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request);
int sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
#endif

}  // namespace adacomp
