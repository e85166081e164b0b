// The marker scheme of point-to-point (docs/p2p.md, "Wire convention"),
// under forced coding: a coded message travels as a marker on the
// application's communicator and a body on the library's, a plain message of
// exactly the marker's size (368 bytes) as a marker and a stored body, every
// other message as the application sent it. Checked through real MPI:
//   marker size  plain 368-byte messages into contiguous and derived
//                receive types, probed first (Probe, Iprobe, Mprobe);
//   wildcards    MPI_ANY_SOURCE / MPI_ANY_TAG receives and Iprobe polling
//                across coded, plain, 368-byte and empty messages from every
//                sender: per-sender order, counts, data;
//   probes       a probe of a coded message reports its original size;
//   truncation   a coded message into a receive too small for it (and one
//                smaller than the marker): MPI_ERR_TRUNCATE, later traffic
//                unharmed; a receive left pending by a Waitall that
//                reports a truncation is finished by its later Wait;
//   small        a receive too small for a marker after a probe took a coded
//                message: MPI_ERR_TRUNCATE on that message, not the next
//                (small receives are MPI's own unless a marker is stashed);
//   cancel       an unmatched wildcard receive cancels, and the message sent
//                after it arrives; a synchronous coded send completes only
//                when received.
// Peers may share a node (ADACOMP_NODE_MAP): their messages are never coded.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "check.h"

namespace {

constexpr int kMarkerBytes = 368;
constexpr int kMarkerDoubles = kMarkerBytes / 8;
int rank_, size_, next_, prev_;

double value(int src, int k, int i) { return src * 1000.0 + k * 10.0 + (i % 97) * 0.5; }

void marker_size() {
  std::vector<double> out(kMarkerDoubles);
  for (int i = 0; i < kMarkerDoubles; ++i) out[i] = value(rank_, 1, i);
  auto ok = [&](const double* in, int stride) {
    for (int i = 0; i < kMarkerDoubles; ++i)
      if (in[i * stride] != value(prev_, 1, i)) return false;
    return true;
  };
  MPI_Datatype strided;  // every other double
  MPI_Type_vector(kMarkerDoubles, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  for (int variant = 0; variant < 6; ++variant) {
    MPI_Request s;
    if (variant % 2)
      MPI_Isend(out.data(), kMarkerBytes, MPI_BYTE, next_, 20 + variant, MPI_COMM_WORLD, &s);
    else
      MPI_Isend(out.data(), kMarkerDoubles, MPI_DOUBLE, next_, 20 + variant, MPI_COMM_WORLD, &s);
    std::vector<double> in(2 * kMarkerDoubles + 4, -1.0);
    MPI_Status st;
    int got = -1, flag = 0;
    MPI_Message msg;
    switch (variant) {
      case 0:  // contiguous, larger buffer
        MPI_Recv(in.data(), kMarkerDoubles + 4, MPI_DOUBLE, prev_, 20, MPI_COMM_WORLD, &st);
        CHECK(ok(in.data(), 1) && in[kMarkerDoubles] == -1.0, "368 bytes contiguous: data");
        break;
      case 1:  // a derived receive type
        MPI_Recv(in.data(), 1, strided, prev_, 21, MPI_COMM_WORLD, &st);
        CHECK(ok(in.data(), 2) && in[1] == -1.0, "368 bytes into a vector type: data");
        break;
      case 2:  // probed first
        MPI_Probe(MPI_ANY_SOURCE, 22, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        CHECK(got == kMarkerDoubles, "Probe of 368 bytes: count %d", got);
        MPI_Recv(in.data(), 1, strided, st.MPI_SOURCE, 22, MPI_COMM_WORLD, &st);
        CHECK(ok(in.data(), 2), "368 bytes after Probe, vector type: data");
        break;
      case 3:
        while (!flag) MPI_Iprobe(prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == kMarkerBytes && st.MPI_TAG == 23, "Iprobe of 368 bytes: %d tag %d", got,
              st.MPI_TAG);
        MPI_Recv(in.data(), kMarkerBytes, MPI_BYTE, prev_, 23, MPI_COMM_WORLD, &st);
        CHECK(ok(in.data(), 1), "368 bytes after Iprobe: data");
        break;
      case 4:
        MPI_Mprobe(prev_, 24, MPI_COMM_WORLD, &msg, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        CHECK(got == kMarkerDoubles, "Mprobe of 368 bytes: count %d", got);
        MPI_Mrecv(in.data(), 1, strided, &msg, &st);
        CHECK(ok(in.data(), 2), "368 bytes after Mprobe, vector type: data");
        break;
      case 5: {  // nonblocking, larger vector receive
        MPI_Request r;
        MPI_Irecv(in.data(), kMarkerBytes + 32, MPI_BYTE, prev_, MPI_ANY_TAG, MPI_COMM_WORLD, &r);
        while (!flag) MPI_Test(&r, &flag, &st);
        CHECK(ok(in.data(), 1), "368 bytes, Irecv + Test: data");
        break;
      }
    }
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == kMarkerBytes, "368 bytes variant %d: count %d", variant, got);
    CHECK(st.MPI_SOURCE == prev_ && st.MPI_TAG == 20 + variant, "368 bytes variant %d: envelope",
          variant);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&strided);
  MPI_Barrier(MPI_COMM_WORLD);  // wildcard receives come next
}

// Message k of a sender: its size cycles through coded, small, the marker's
// size and empty. Element 0 says (sender, k).
int length_of(int k) {
  switch (k % 4) {
    case 0:
      return 6000 + k;
    case 1:
      return 3;
    case 2:
      return kMarkerDoubles;
    default:
      return 0;
  }
}

void wildcards(bool poll) {
  const int per_sender = 12, tag_base = poll ? 300 : 200;
  if (rank_ != 0) {
    std::vector<std::vector<double>> out(per_sender);
    std::vector<MPI_Request> reqs(per_sender);
    for (int k = 0; k < per_sender; ++k) {
      const int n = length_of(k);
      out[k].resize(n + 1);
      for (int i = 0; i < n; ++i) out[k][i] = value(rank_, k, i);
      if (n) out[k][0] = rank_ * 100 + k;
      if (k % 3 == 2)
        MPI_Issend(out[k].data(), n, MPI_DOUBLE, 0, tag_base + k % 2, MPI_COMM_WORLD, &reqs[k]);
      else
        MPI_Isend(out[k].data(), n, MPI_DOUBLE, 0, tag_base + k % 2, MPI_COMM_WORLD, &reqs[k]);
    }
    MPI_Waitall(per_sender, reqs.data(), MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);  // the next round's messages after these
    return;
  }
  std::vector<int> next(size_, 0);
  std::vector<double> in(8000);
  for (int m = 0; m < per_sender * (size_ - 1); ++m) {
    MPI_Status st;
    int got = -1;
    if (poll) {
      int flag = 0;
      while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      MPI_Get_count(&st, MPI_DOUBLE, &got);
      const int k = next[st.MPI_SOURCE];
      CHECK(got == length_of(k), "Iprobe: message %d of %d: count %d, expected %d", k,
            st.MPI_SOURCE, got, length_of(k));
      MPI_Recv(in.data(), got, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(in.data(), 8000, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    }
    const int src = st.MPI_SOURCE;
    if (src <= 0 || src >= size_) {
      CHECK(false, "wildcard receive from rank %d", src);
      continue;
    }
    const int k = next[src]++;
    const int n = length_of(k);
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    CHECK(got == n, "%s: message %d of %d: count %d, expected %d", poll ? "poll" : "wildcard", k,
          src, got, n);
    CHECK(st.MPI_TAG == tag_base + k % 2, "message %d of %d: tag %d", k, src, st.MPI_TAG);
    bool ok = n == 0 || in[0] == src * 100 + k;
    for (int i = 1; i < n; ++i) ok = ok && in[i] == value(src, k, i);
    CHECK(ok, "%s: message %d of %d: data or order", poll ? "poll" : "wildcard", k, src);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void probe_coded_and_truncate() {
  MPI_Comm c = error_returning_comm();
  const int n = 20000;
  std::vector<double> out(n), in(n + 8, -1.0);
  for (int i = 0; i < n; ++i) out[i] = value(rank_, 7, i);
  MPI_Request s;
  MPI_Isend(out.data(), n, MPI_DOUBLE, next_, 40, c, &s);
  MPI_Status st;
  MPI_Message msg;
  MPI_Mprobe(prev_, 40, c, &msg, &st);
  int got = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &got);
  CHECK(got == n, "Mprobe of a coded message: count %d, expected %d", got, n);
  MPI_Mrecv(in.data(), n, MPI_DOUBLE, &msg, &st);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && in[i] == value(prev_, 7, i);
  CHECK(ok, "Mrecv of a coded message: data");
  MPI_Wait(&s, MPI_STATUS_IGNORE);

  // Too small for the message, not for the marker; then smaller than the
  // marker; nonblocking too. Each gives MPI_ERR_TRUNCATE.
  const int capacities[] = {1000, 10, 1000};
  for (int v = 0; v < 3; ++v) {
    MPI_Isend(out.data(), n, MPI_DOUBLE, next_, 41 + v, c, &s);
    int rc;
    if (v < 2) {
      rc = MPI_Recv(in.data(), capacities[v], MPI_DOUBLE, prev_, 41 + v, c, &st);
    } else {
      // MPICH 4.0 raises MPI_Wait's errors on MPI_COMM_WORLD's handler.
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      MPI_Request r;
      MPI_Irecv(in.data(), capacities[v], MPI_DOUBLE, prev_, 41 + v, c, &r);
      rc = MPI_Wait(&r, &st);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncation %d: error class %d", v, cls);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
  }
  // Later traffic is unharmed.
  MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, 45, in.data(), n, MPI_DOUBLE, prev_, 45, c, &st);
  ok = true;
  for (int i = 0; i < n; ++i) ok = ok && in[i] == value(prev_, 7, i);
  CHECK(ok, "message after truncations: data");
  MPI_Comm_free(&c);
}

// A Waitall over two coded messages' receives, the first smaller than its
// marker: MPI may report the truncation before the second has arrived (Open
// MPI does), leaving it in flight with MPI_ERR_PENDING in its status. That
// one is then not finished: it stays the library's, and a later MPI_Wait
// delivers its data.
void waitall_truncated_and_pending() {
  // The last rank sends to rank 0: another node under ADACOMP_NODE_MAP=2,2.
  const int sender = size_ - 1, receiver = 0;
  MPI_Comm c = error_returning_comm();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // MPICH 4.0: Wait's errors
  const int n = 20000, m = 12000;
  std::vector<double> out(n), in(n, -1.0), small(10);
  for (int i = 0; i < n; ++i) out[i] = value(rank_, 8, i);
  if (rank_ == sender) {
    MPI_Request s[2];
    // 256 doubles: coded where framed (its 368-byte marker is what MPI
    // cuts), eager where direct (Open MPI 4.1 corrupts the heap when it
    // cuts a rendezvous message between ranks of one node, library or not).
    MPI_Isend(out.data(), 256, MPI_DOUBLE, receiver, 47, c, &s[0]);
    usleep(200000);  // the second arrives after MPI has seen the first cut
    MPI_Isend(out.data(), m, MPI_DOUBLE, receiver, 48, c, &s[1]);
    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
  } else if (rank_ == receiver) {
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(small.data(), 10, MPI_DOUBLE, sender, 47, c, &r[0]);
    MPI_Irecv(in.data(), n, MPI_DOUBLE, sender, 48, c, &r[1]);
    const int rc = MPI_Waitall(2, r, st);
    int cls = -1;
    MPI_Error_class(rc == MPI_ERR_IN_STATUS ? st[0].MPI_ERROR : rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Waitall with a receive smaller than a marker: class %d", cls);
    if (rc != MPI_ERR_IN_STATUS || st[1].MPI_ERROR == MPI_ERR_PENDING) {
      CHECK(r[1] != MPI_REQUEST_NULL, "a receive still pending after Waitall was freed");
      if (r[1] != MPI_REQUEST_NULL) MPI_Wait(&r[1], &st[1]);
    }
    int got = -1;
    MPI_Get_count(&st[1], MPI_DOUBLE, &got);
    bool ok = got == m;
    for (int i = 0; ok && i < m; ++i) ok = in[i] == value(sender, 8, i);
    CHECK(ok, "the receive pending at a failed Waitall: count %d (expected %d) or data", got, m);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&c);
}

// A probe takes a coded message's marker off the wire; a receive too small
// for a marker, blocking or not, must still match that message first (and
// fail with MPI_ERR_TRUNCATE), then the small message sent after it arrives.
void probed_then_small_receive() {
  MPI_Comm c = error_returning_comm();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // MPICH 4.0: MPI_Wait's errors
  const int n = 20000, small = 4;
  std::vector<double> out(n), in(n, -1.0);
  for (int i = 0; i < n; ++i) out[i] = value(rank_, 11, i);
  for (int v = 0; v < 2; ++v) {
    const int tag = 60 + v;
    MPI_Request s[2];
    MPI_Isend(out.data(), n, MPI_DOUBLE, next_, tag, c, &s[0]);
    MPI_Isend(out.data(), small, MPI_DOUBLE, next_, tag, c, &s[1]);
    MPI_Status st;
    MPI_Probe(prev_, tag, c, &st);
    int got = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    CHECK(got == n, "small receive %d: probe count %d, expected %d", v, got, n);
    int rc;
    if (v == 0) {
      rc = MPI_Recv(in.data(), 10, MPI_DOUBLE, prev_, tag, c, &st);
    } else {
      MPI_Request r;
      MPI_Irecv(in.data(), 10, MPI_DOUBLE, prev_, tag, c, &r);
      rc = MPI_Wait(&r, &st);
    }
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "small receive %d after a probe: error class %d", v, cls);
    std::fill(in.begin(), in.end(), -1.0);
    rc = MPI_Recv(in.data(), small, MPI_DOUBLE, prev_, tag, c, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    bool ok = rc == MPI_SUCCESS && got == small;
    for (int i = 0; i < small; ++i) ok = ok && in[i] == value(prev_, 11, i);
    CHECK(ok, "small receive %d: the message after the probed one: rc %d count %d", v, rc, got);
    MPI_Waitall(2, s, MPI_STATUSES_IGNORE);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_free(&c);
}

void cancel_and_sync() {
  const int n = 9000;
  std::vector<double> out(n), in(n, -1.0);
  for (int i = 0; i < n; ++i) out[i] = value(rank_, 9, i);
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(in.data(), n, MPI_DOUBLE, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled, "an unmatched receive was not cancelled");
  CHECK(in[0] == -1.0, "a cancelled receive wrote data");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, 50, in.data(), n, MPI_DOUBLE, prev_, 50,
               MPI_COMM_WORLD, &st);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && in[i] == value(prev_, 9, i);
  CHECK(ok, "the message after a cancelled receive: data");

  // A synchronous coded send to itself completes only once received.
  MPI_Request s;
  int flag = 1;
  MPI_Issend(out.data(), n, MPI_DOUBLE, rank_, 51, MPI_COMM_WORLD, &s);
  for (int i = 0; i < 100 && flag; ++i) MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "a synchronous send completed before its receive");
  if (!flag) {
    MPI_Recv(in.data(), n, MPI_DOUBLE, rank_, 51, MPI_COMM_WORLD, &st);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    ok = true;
    for (int i = 0; i < n; ++i) ok = ok && in[i] == value(rank_, 9, i);
    CHECK(ok, "synchronous send to itself: data");
  }
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &rank_, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ - 1 + size_) % size_;
  marker_size();
  wildcards(false);
  wildcards(true);
  probe_coded_and_truncate();
  waitall_truncated_and_pending();
  probed_then_small_receive();
  cancel_and_sync();
  // Summed: with peers on this rank's node, a rank may code nothing itself.
  long long mine = static_cast<long long>(op_stats("send").compressed_calls), coded = 0;
  MPI_Allreduce(&mine, &coded, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(coded > 0, "no message was coded");
  return finish_test("p2p_marker");
}
