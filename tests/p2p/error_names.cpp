// Under ADACOMP_FAULT=corrupt-frames every coded frame arrives damaged: the
// error each rank is told about must name the call the user made (MPI_Wait,
// MPI_Test, MPI_Waitall, MPI_Mrecv, MPI_Recv, MPI_Recv polled while a
// nonblocking collective is outstanding, and that MPI_Iallreduce), with the
// reason, and come back
// through MPI_ERRORS_RETURN as an AdaComp error (from MPI_Waitall as
// MPI_ERR_IN_STATUS, with the AdaComp error in the failed request's status).
#include <string>
#include <vector>

#include "check.h"

namespace {

void expect_named(const std::string& text, const char* call, int rc) {
  CHECK(is_adacomp_error(rc), "%s returned %d", call, rc);
  CHECK_REPORTS(text, call);
  CHECK(text.find("frame header does not verify") != std::string::npos, "no reason in: %s",
        text.c_str());
  if (std::string(call) != "Recv")
    CHECK(text.find("MPI_Recv") == std::string::npos, "%s reported as MPI_Recv: %s", call,
          text.c_str());
  if (std::string(call) != "Test")
    CHECK(text.find("MPI_Test") == std::string::npos, "%s reported as MPI_Test: %s", call,
          text.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();
  const int n = 40000, next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  std::vector<double> in(n, 2.0 + rank), out(n);
  int rc = MPI_SUCCESS;

  MPI_Request r;
  std::string text = captured_stderr([&] {
    MPI_Irecv(out.data(), n, MPI_DOUBLE, prev, 1, comm, &r);
    MPI_Send(in.data(), n, MPI_DOUBLE, next, 1, comm);
    rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  });
  expect_named(text, "Wait", rc);

  text = captured_stderr([&] {
    MPI_Irecv(out.data(), n, MPI_DOUBLE, prev, 2, comm, &r);
    MPI_Send(in.data(), n, MPI_DOUBLE, next, 2, comm);
    int flag = 0;
    do rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    while (rc == MPI_SUCCESS && !flag);
  });
  expect_named(text, "Test", rc);

  MPI_Status statuses[2];
  text = captured_stderr([&] {
    MPI_Request rs[2];
    MPI_Irecv(out.data(), n, MPI_DOUBLE, prev, 3, comm, &rs[0]);
    MPI_Isend(in.data(), n, MPI_DOUBLE, next, 3, comm, &rs[1]);
    rc = MPI_Waitall(2, rs, statuses);
  });
  // A multiple completion reports a failure in the failed request's status.
  CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %d, not MPI_ERR_IN_STATUS", rc);
  CHECK(statuses[1].MPI_ERROR == MPI_SUCCESS, "Waitall: the send's status has error %d",
        statuses[1].MPI_ERROR);
  expect_named(text, "Waitall", statuses[0].MPI_ERROR);

  text = captured_stderr([&] {
    MPI_Request s;
    MPI_Message msg;
    MPI_Isend(in.data(), n, MPI_DOUBLE, next, 4, comm, &s);
    MPI_Mprobe(prev, 4, comm, &msg, MPI_STATUS_IGNORE);
    rc = MPI_Mrecv(out.data(), n, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
  });
  expect_named(text, "Mrecv", rc);

  // MPI_Recv of a message on `tag` from the previous rank.
  auto recv_named = [&](int tag) {
    text = captured_stderr([&] {
      MPI_Request s;
      MPI_Isend(in.data(), n, MPI_DOUBLE, next, tag, comm, &s);
      rc = MPI_Recv(out.data(), n, MPI_DOUBLE, prev, tag, comm, MPI_STATUS_IGNORE);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    });
    expect_named(text, "Recv", rc);
  };
  recv_named(5);

  // Rank 0 receives while its Iallreduce is outstanding (the others join
  // the collective only afterwards, so it cannot finish meanwhile): its
  // MPI_Recv runs polled (boundary/completion_calls.h), and the error still
  // names MPI_Recv, not the MPI_Test it polls with.
  std::vector<double> sum(n);
  MPI_Request coll = MPI_REQUEST_NULL;
  if (rank == 0) MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm, &coll);
  recv_named(6);
  if (rank != 0) MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm, &coll);
  // Its own frames are damaged too: an error that names MPI_Iallreduce.
  text = captured_stderr([&] { rc = MPI_Wait(&coll, MPI_STATUS_IGNORE); });
  if (size > 1) CHECK_REPORTS(text, "Iallreduce");

  MPI_Comm_free(&comm);
  return finish_test("p2p_error_names");
}
