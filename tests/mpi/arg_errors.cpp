// Argument errors in the intercepted calls (issue 12, D4/D5/D10): under
// MPI_ERRORS_RETURN on the application's communicator (MPI_COMM_WORLD keeps
// its fatal handler, so an error raised there kills the test), every bad call
// returns the error class, and the error string, that the same call gives
// through PMPI; nothing reaches the wire and no channel memory is kept.
#include <climits>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "check.h"

namespace {

std::string error_string(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

// Runs the call through the library and through PMPI; both must fail alike.
void compare(const char* label, const std::function<int()>& lib,
             const std::function<int()>& plain) {
  const int rc = lib();
  const int expected = plain();
  int cls = -1, expected_cls = -2;
  PMPI_Error_class(rc, &cls);
  PMPI_Error_class(expected, &expected_cls);
  CHECK(expected != MPI_SUCCESS, "%s: PMPI accepts it (test error)", label);
  CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, PMPI gives class %d", label, expected_cls);
  CHECK(cls == expected_cls, "%s: class %d (%s), PMPI gives %d (%s)", label, cls,
        error_string(rc).c_str(), expected_cls, error_string(expected).c_str());
  CHECK(error_string(rc) == error_string(expected), "%s: message '%s', PMPI gives '%s'", label,
        error_string(rc).c_str(), error_string(expected).c_str());
}

// The same where PMPI rejects the call; where it accepts it (an MPI that
// defines more than the standard), the library must accept it too.
void compare_where_rejected(const char* label, const std::function<int()>& lib,
                            const std::function<int()>& plain) {
  if (plain() == MPI_SUCCESS) {
    CHECK(lib() == MPI_SUCCESS, "%s: PMPI accepts it, the library does not", label);
    return;
  }
  compare(label, lib, plain);
}

}  // namespace

// COMPARE(label, Name(args)): MPI_Name(args) against PMPI_Name(args).
#define COMPARE(label, ...) \
  compare(                  \
      label, [&] { return MPI_##__VA_ARGS__; }, [&] { return PMPI_##__VA_ARGS__; })

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();
  const int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
  const int n = 4096;  // compressed-size messages (thresholds 0 in ctest)
  std::vector<double> a(n, 1.5 + rank), b(n * size + n, 0.0), c(n * size + n, 0.0);
  MPI_Datatype uncommitted;
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &uncommitted);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  const int big_tag = found && *ub < INT_MAX ? *ub + 1 : -7;
  void* d = a.data();
  void* r = b.data();
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  MPI_Message msg;
  int flag = 0;

  // Point-to-point: count, datatype, rank, tag.
  COMPARE("Send count -1", Send(d, -1, MPI_DOUBLE, peer, 0, comm));
  COMPARE("Send DATATYPE_NULL", Send(d, n, MPI_DATATYPE_NULL, peer, 0, comm));
  COMPARE("Send uncommitted", Send(d, 8, uncommitted, peer, 0, comm));
  COMPARE("Send rank=size", Send(d, n, MPI_DOUBLE, size, 0, comm));
  COMPARE("Send rank ANY_SOURCE", Send(d, n, MPI_DOUBLE, MPI_ANY_SOURCE, 0, comm));
  COMPARE("Send tag -5", Send(d, n, MPI_DOUBLE, peer, -5, comm));
  COMPARE("Send tag ANY_TAG", Send(d, n, MPI_DOUBLE, peer, MPI_ANY_TAG, comm));
  COMPARE("Send tag > TAG_UB", Send(d, n, MPI_DOUBLE, peer, big_tag, comm));
  COMPARE("Ssend count -1", Ssend(d, -1, MPI_DOUBLE, peer, 0, comm));
  COMPARE("Rsend DATATYPE_NULL", Rsend(d, n, MPI_DATATYPE_NULL, peer, 0, comm));
  COMPARE("Bsend count -1", Bsend(d, -1, MPI_DOUBLE, peer, 0, comm));
  COMPARE("Isend count -1", Isend(d, -1, MPI_DOUBLE, peer, 0, comm, &req));
  COMPARE("Isend rank=size", Isend(d, n, MPI_DOUBLE, size, 0, comm, &req));
  COMPARE("Issend DATATYPE_NULL", Issend(d, n, MPI_DATATYPE_NULL, peer, 0, comm, &req));
  COMPARE("Irsend tag -5", Irsend(d, n, MPI_DOUBLE, peer, -5, comm, &req));
  COMPARE("Ibsend uncommitted", Ibsend(d, 8, uncommitted, peer, 0, comm, &req));
  COMPARE("Send_init count -1", Send_init(d, -1, MPI_DOUBLE, peer, 0, comm, &req));
  COMPARE("Ssend_init rank=size", Ssend_init(d, n, MPI_DOUBLE, size, 0, comm, &req));
  COMPARE("Bsend_init DATATYPE_NULL", Bsend_init(d, n, MPI_DATATYPE_NULL, peer, 0, comm, &req));
  COMPARE("Recv count -1", Recv(r, -1, MPI_DOUBLE, from, 0, comm, &st));
  COMPARE("Recv DATATYPE_NULL", Recv(r, n, MPI_DATATYPE_NULL, from, 0, comm, &st));
  COMPARE("Recv uncommitted", Recv(r, 8, uncommitted, from, 0, comm, &st));
  COMPARE("Recv rank=size", Recv(r, n, MPI_DOUBLE, size, 0, comm, &st));
  COMPARE("Recv tag -5", Recv(r, n, MPI_DOUBLE, from, -5, comm, &st));
  COMPARE("Irecv count -1", Irecv(r, -1, MPI_DOUBLE, from, 0, comm, &req));
  COMPARE("Irecv rank -3", Irecv(r, n, MPI_DOUBLE, -3, 0, comm, &req));
  COMPARE("Recv_init DATATYPE_NULL", Recv_init(r, n, MPI_DATATYPE_NULL, from, 0, comm, &req));
  COMPARE("Sendrecv send count -1",
          Sendrecv(d, -1, MPI_DOUBLE, peer, 0, r, n, MPI_DOUBLE, from, 0, comm, &st));
  COMPARE("Sendrecv recv rank=size",
          Sendrecv(d, n, MPI_DOUBLE, peer, 0, r, n, MPI_DOUBLE, size, 0, comm, &st));
  COMPARE("Sendrecv_replace DATATYPE_NULL",
          Sendrecv_replace(r, n, MPI_DATATYPE_NULL, peer, 0, from, 0, comm, &st));
  COMPARE("Probe rank=size", Probe(size, 0, comm, &st));
  COMPARE("Iprobe tag -5", Iprobe(from, -5, comm, &flag, &st));
  COMPARE("Mprobe rank -3", Mprobe(-3, 0, comm, &msg, &st));
  COMPARE("Improbe tag -5", Improbe(from, -5, comm, &flag, &msg, &st));

  // A bad call keeps no reference memory (no channel for an invalid rank).
  adacomp_interstep_memory mem{};
  adacomp_get_interstep_memory(&mem);
  CHECK(mem.send_peak == 0 && mem.recv_peak == 0,
        "bad calls kept references: %llu sent, %llu received", mem.send_peak, mem.recv_peak);

  // Collectives: count, datatype, root.
#ifndef MPICH_VERSION
  // MPICH 4.0 does not check collective counts: a negative one overwrites
  // its stack (plain MPICH, "stack smashing detected"). Calls with a negative
  // count pass through to it unchanged.
  COMPARE("Allreduce count -1", Allreduce(d, r, -1, MPI_DOUBLE, MPI_SUM, comm));
  COMPARE("Bcast count -1", Bcast(r, -1, MPI_DOUBLE, 0, comm));
  COMPARE("Allgather count -1", Allgather(d, -1, MPI_DOUBLE, r, n, MPI_DOUBLE, comm));
  COMPARE("Reduce_scatter_block count -1",
          Reduce_scatter_block(d, r, -1, MPI_DOUBLE, MPI_SUM, comm));
#endif
  COMPARE("Allreduce DATATYPE_NULL", Allreduce(d, r, n, MPI_DATATYPE_NULL, MPI_SUM, comm));
  COMPARE("Reduce DATATYPE_NULL", Reduce(d, r, n, MPI_DATATYPE_NULL, MPI_SUM, 0, comm));
  // Pairs MPI does not define (MPI-4 6.9.2), on every rank, the root's
  // leaves too (MPICH rejects both; Open MPI defines MPI_MAX on MPI_BYTE).
  compare_where_rejected(
      "Allreduce MAX on BYTE", [&] { return MPI_Allreduce(d, r, n * 8, MPI_BYTE, MPI_MAX, comm); },
      [&] { return PMPI_Allreduce(d, r, n * 8, MPI_BYTE, MPI_MAX, comm); });
  COMPARE("Reduce BAND on DOUBLE", Reduce(d, r, n, MPI_DOUBLE, MPI_BAND, 0, comm));
  COMPARE("Reduce root=size", Reduce(d, r, n, MPI_DOUBLE, MPI_SUM, size, comm));
  COMPARE("Bcast DATATYPE_NULL", Bcast(r, n, MPI_DATATYPE_NULL, 0, comm));
  COMPARE("Bcast uncommitted", Bcast(r, 8, uncommitted, 0, comm));
  COMPARE("Bcast root -3", Bcast(r, n, MPI_DOUBLE, -3, comm));
  COMPARE("Allgather DATATYPE_NULL", Allgather(d, n, MPI_DATATYPE_NULL, r, n, MPI_DOUBLE, comm));
  COMPARE("Gather root=size", Gather(d, n, MPI_DOUBLE, r, n, MPI_DOUBLE, size, comm));
  COMPARE("Scatter DATATYPE_NULL", Scatter(d, n, MPI_DOUBLE, r, n, MPI_DATATYPE_NULL, 0, comm));
  COMPARE("Alltoall DATATYPE_NULL", Alltoall(d, 1, MPI_DATATYPE_NULL, r, 1, MPI_DOUBLE, comm));
  COMPARE("Reduce_scatter_block DATATYPE_NULL",
          Reduce_scatter_block(d, r, 4, MPI_DATATYPE_NULL, MPI_SUM, comm));

  // MPI_COMM_NULL: MPI raises that on MPI_COMM_WORLD (or MPI_COMM_SELF).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  COMPARE("Send COMM_NULL", Send(d, n, MPI_DOUBLE, peer, 0, MPI_COMM_NULL));
  COMPARE("Irecv COMM_NULL", Irecv(r, n, MPI_DOUBLE, from, 0, MPI_COMM_NULL, &req));
  COMPARE("Allreduce COMM_NULL", Allreduce(d, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL));
  COMPARE("Bcast COMM_NULL", Bcast(r, n, MPI_DOUBLE, 0, MPI_COMM_NULL));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  // Nothing a bad call did reached the wire, and the communicator works.
  MPI_Barrier(comm);
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
  CHECK(!flag, "a bad call left a message from rank %d, tag %d", st.MPI_SOURCE, st.MPI_TAG);
  MPI_Barrier(comm);
  int rc =
      MPI_Sendrecv(a.data(), n, MPI_DOUBLE, peer, 9, b.data(), n, MPI_DOUBLE, from, 9, comm, &st);
  CHECK(rc == MPI_SUCCESS && b[0] == 1.5 + from && b[n - 1] == 1.5 + from,
        "exchange after the errors: rc %d, got %g", rc, b[0]);
  MPI_Type_free(&uncommitted);
  MPI_Comm_free(&comm);
  return finish_test("arg_errors");
}
