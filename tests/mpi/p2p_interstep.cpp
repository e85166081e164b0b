// Inter-step coding of point-to-point messages: repeated messages on a
// channel (communicator, peer, tag, size) are coded as their XOR with the
// previous one.
// Every received buffer is compared bit for bit with what the sender
// generated, under the orders in which MPI lets an application complete its
// receives (reversed waits, Waitall/Waitany/Testsome, probes, matched probes,
// persistent and derived-datatype receives, ANY_SOURCE), with a small
// reference budget that forces channels to be retired, after a truncated
// message, and on data where XOR does not pay (the channel goes to sleep).
//
//   test_p2p_interstep            expects inter-step frames (ADACOMP_INTERSTEP on, the default)
//   test_p2p_interstep --off      expects none (ADACOMP_INTERSTEP=off); data still exact
//   test_p2p_interstep --budget N checks the reference memory against N bytes
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

int rank_, size_, next_, prev_;
bool expect_interstep = true;
size_t budget = 0;

// A particle coordinate drifting slowly: consecutive steps share their high
// bits, neighbouring values do not (what inter-step coding is for).
double series(int sender, int tag, int step, size_t i) {
  double base = std::fmod((sender * 131 + tag * 7 + 1) * 0.6180339887 + i * 0.7548776662, 1.0);
  return 100.0 * base + step * 1e-6 * static_cast<double>(i % 17 + 1);
}
std::vector<double> message(int sender, int tag, int step, size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = series(sender, tag, step, i);
  return v;
}
bool same(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
}

// Ring exchange of a time series: the basic halo-exchange pattern.
void series_exchange() {
  const size_t n = 4096;
  for (int step = 0; step < 20; ++step) {
    std::vector<double> out = message(rank_, 1, step, n), in(n);
    MPI_Status st;
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, 1, in.data(), n, MPI_DOUBLE, prev_, 1,
                 MPI_COMM_WORLD, &st);
    CHECK(same(in, message(prev_, 1, step, n)), "series step %d", step);
    int got = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    CHECK(got == static_cast<int>(n), "series step %d: Get_count %d", step, got);
  }
}

// Several messages on one channel in flight; the application completes the
// receives in another order than MPI matched them.
void reordered_completion() {
  const int k = 8;
  const size_t n = 2048;
  int step = 0;
  for (int round = 0; round < 5; ++round, step += k) {
    std::vector<std::vector<double>> in(k, std::vector<double>(n));
    std::vector<MPI_Request> rr(k), sr(k);
    std::vector<std::vector<double>> out;
    for (int j = 0; j < k; ++j) out.push_back(message(rank_, 2, step + j, n));
    for (int j = 0; j < k; ++j)
      MPI_Irecv(in[j].data(), n, MPI_DOUBLE, prev_, 2, MPI_COMM_WORLD, &rr[j]);
    for (int j = 0; j < k; ++j)
      MPI_Isend(out[j].data(), n, MPI_DOUBLE, next_, 2, MPI_COMM_WORLD, &sr[j]);
    if (round == 0) {
      for (int j = k - 1; j >= 0; --j) MPI_Wait(&rr[j], MPI_STATUS_IGNORE);
    } else if (round == 1) {
      std::vector<MPI_Request> rev(rr.rbegin(), rr.rend());
      MPI_Waitall(k, rev.data(), MPI_STATUSES_IGNORE);
    } else if (round == 2) {
      for (int left = k; left > 0; --left) {
        int idx;
        MPI_Waitany(k, rr.data(), &idx, MPI_STATUS_IGNORE);
      }
    } else if (round == 3) {
      for (int done = 0; done < k;) {
        int outcount = 0;
        std::vector<int> idx(k);
        // Newest first: a later frame may be finished before its predecessor.
        std::vector<MPI_Request> rev(rr.rbegin(), rr.rend());
        MPI_Testsome(k, rev.data(), &outcount, idx.data(), MPI_STATUSES_IGNORE);
        for (int j = 0; j < k; ++j) rr[k - 1 - j] = rev[j];
        done += outcount == MPI_UNDEFINED ? 0 : outcount;
      }
    } else {
      // Request_get_status on the newest, then the rest.
      int flag = 0;
      while (!flag) MPI_Request_get_status(rr[k - 1], &flag, MPI_STATUS_IGNORE);
      MPI_Waitall(k, rr.data(), MPI_STATUSES_IGNORE);
    }
    MPI_Waitall(k, sr.data(), MPI_STATUSES_IGNORE);
    for (int j = 0; j < k; ++j)
      CHECK(same(in[j], message(prev_, 2, step + j, n)), "reordered round %d message %d", round, j);
  }
}

// Probes take channel frames off the wire between receives that MPI matched
// earlier and later.
void probes_between_receives() {
  const size_t n = 3000;
  std::vector<MPI_Request> sr(6);
  std::vector<std::vector<double>> out;
  for (int j = 0; j < 6; ++j) out.push_back(message(rank_, 3, j, n));
  std::vector<double> a(n), b(n), c(n), d(n), e(n), f(n);
  MPI_Request ra;
  MPI_Irecv(a.data(), n, MPI_DOUBLE, prev_, 3, MPI_COMM_WORLD, &ra);
  for (int j = 0; j < 6; ++j)
    MPI_Isend(out[j].data(), n, MPI_DOUBLE, next_, 3, MPI_COMM_WORLD, &sr[j]);
  MPI_Status st;
  MPI_Probe(prev_, 3, MPI_COMM_WORLD, &st);  // message 1: a already has message 0
  int got = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &got);
  CHECK(got == static_cast<int>(n), "probe count %d", got);
  MPI_Recv(b.data(), n, MPI_DOUBLE, prev_, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Message msg;
  MPI_Mprobe(prev_, 3, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
  MPI_Mrecv(c.data(), n, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
  MPI_Request r2[2];
  MPI_Irecv(d.data(), n, MPI_DOUBLE, prev_, 3, MPI_COMM_WORLD, &r2[0]);
  MPI_Irecv(e.data(), n, MPI_DOUBLE, prev_, 3, MPI_COMM_WORLD, &r2[1]);
  MPI_Recv(f.data(), n, MPI_DOUBLE, prev_, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&r2[1], MPI_STATUS_IGNORE);
  MPI_Wait(&r2[0], MPI_STATUS_IGNORE);
  MPI_Wait(&ra, MPI_STATUS_IGNORE);
  MPI_Waitall(6, sr.data(), MPI_STATUSES_IGNORE);
  const std::vector<double>* got_msgs[] = {&a, &b, &c, &d, &e, &f};
  for (int j = 0; j < 6; ++j)
    CHECK(same(*got_msgs[j], message(prev_, 3, j, n)), "probe sequence message %d", j);
}

void persistent_and_derived() {
  const size_t n = 2500;
  std::vector<double> in(n);
  MPI_Request rr;
  MPI_Recv_init(in.data(), n, MPI_DOUBLE, prev_, 4, MPI_COMM_WORLD, &rr);
  for (int step = 0; step < 6; ++step) {
    std::vector<double> out = message(rank_, 4, step, n);
    MPI_Start(&rr);
    MPI_Send(out.data(), n, MPI_DOUBLE, next_, 4, MPI_COMM_WORLD);
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    CHECK(same(in, message(prev_, 4, step, n)), "persistent receive step %d", step);
  }
  MPI_Request_free(&rr);

  // Every other element of a twice-as-long buffer: staged receive.
  MPI_Datatype strided;
  MPI_Type_vector(static_cast<int>(n), 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  for (int step = 0; step < 6; ++step) {
    std::vector<double> out = message(rank_, 5, step, n), wide(2 * n, -1.0);
    MPI_Request r;
    MPI_Irecv(wide.data(), 1, strided, prev_, 5, MPI_COMM_WORLD, &r);
    MPI_Send(out.data(), n, MPI_DOUBLE, next_, 5, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    std::vector<double> expect = message(prev_, 5, step, n);
    bool ok = true;
    for (size_t i = 0; i < n; ++i)
      ok = ok && std::memcmp(&wide[2 * i], &expect[i], 8) == 0 && wide[2 * i + 1] == -1.0;
    CHECK(ok, "strided receive step %d", step);
  }
  MPI_Type_free(&strided);
}

// A message a probe has taken off the wire, then received by a persistent
// request, completed by Wait, Waitany, Testany and Waitsome.
void probed_then_persistent() {
  const size_t n = 2000;
  std::vector<double> in(n);
  MPI_Request rr;
  MPI_Recv_init(in.data(), n, MPI_DOUBLE, prev_, 9, MPI_COMM_WORLD, &rr);
  for (int step = 0; step < 4; ++step) {
    std::vector<double> out = message(rank_, 9, step, n);
    MPI_Request sr;
    MPI_Isend(out.data(), n, MPI_DOUBLE, next_, 9, MPI_COMM_WORLD, &sr);
    MPI_Status st;
    MPI_Probe(prev_, 9, MPI_COMM_WORLD, &st);
    MPI_Start(&rr);
    int idx = -1, flag = 0, outcount = 0;
    if (step == 0) {
      MPI_Wait(&rr, &st);
    } else if (step == 1) {
      MPI_Waitany(1, &rr, &idx, &st);
      CHECK(idx == 0, "Waitany index %d", idx);
    } else if (step == 2) {
      while (!flag) MPI_Testany(1, &rr, &idx, &flag, &st);
      CHECK(idx == 0, "Testany index %d", idx);
    } else {
      MPI_Waitsome(1, &rr, &outcount, &idx, &st);
      CHECK(outcount == 1 && idx == 0, "Waitsome outcount %d index %d", outcount, idx);
    }
    int got = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    CHECK(got == static_cast<int>(n) && st.MPI_SOURCE == prev_ && st.MPI_TAG == 9,
          "probed persistent step %d: count %d source %d tag %d", step, got, st.MPI_SOURCE,
          st.MPI_TAG);
    CHECK(same(in, message(prev_, 9, step, n)), "probed persistent step %d data", step);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&rr);
}

// Rank 0 takes every other rank's series with MPI_ANY_SOURCE/MPI_ANY_TAG
// (on a communicator of its own: other phases' messages must not match).
void any_source() {
  const size_t n = 1500;
  const int steps = 8;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rank_ != 0) {
    for (int step = 0; step < steps; ++step) {
      std::vector<double> out = message(rank_, 6, step, n);
      MPI_Send(out.data(), n, MPI_DOUBLE, 0, 6, comm);
    }
  } else {
    std::vector<int> next_step(size_, 0);
    for (int m = 0; m < steps * (size_ - 1); ++m) {
      std::vector<double> in(n);
      MPI_Status st;
      MPI_Recv(in.data(), n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
      int s = st.MPI_SOURCE;
      CHECK(st.MPI_TAG == 6, "any_source tag %d", st.MPI_TAG);
      CHECK(same(in, message(s, 6, next_step[s], n)), "any_source from %d step %d", s,
            next_step[s]);
      ++next_step[s];
    }
  }
  MPI_Comm_free(&comm);
}

// More channels than the budget holds: hot channels every round, cold ones
// in rotation, so the least recently used are retired and reopened.
void budget_pressure() {
  const size_t n = 1024;  // 8 KB messages
  for (int round = 0; round < 8; ++round) {
    std::vector<int> tags = {10, 11, 12, 13, 20 + round % 8};
    for (int tag : tags) {
      std::vector<double> out = message(rank_, tag, round, n), in(n);
      MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, tag, in.data(), n, MPI_DOUBLE, prev_, tag,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(same(in, message(prev_, tag, round, n)), "budget round %d tag %d", round, tag);
    }
  }
}

// A truncated message on a channel (issue 12, D2): an error, and the
// channel recovers. Messages the sender posts once the receiver has reported
// the truncation (here: after a barrier) arrive exactly; those already in
// flight arrive exactly or fail with an AdaComp error, never hang.
void truncation(int short_count) {
  MPI_Comm comm = error_returning_comm();
  const size_t n = 4096;
  auto send = [&](int step) {
    std::vector<double> out = message(rank_, 7, step, n);
    MPI_Send(out.data(), n, MPI_DOUBLE, 1, 7, comm);
  };
  std::vector<double> in(n);
  auto recv = [&](int step, int count) {
    int rc = MPI_Recv(in.data(), count, MPI_DOUBLE, 0, 7, comm, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (count == static_cast<int>(n))
      CHECK(rc == MPI_SUCCESS && same(in, message(0, 7, step, n)),
            "truncation(%d): message %d: rc %d", short_count, step, rc);
    else
      CHECK(cls == MPI_ERR_TRUNCATE, "truncation(%d): short receive gave class %d", short_count,
            cls);
    return rc;
  };
  if (rank_ == 0) {
    for (int step = 0; step < 2; ++step) send(step);
    MPI_Barrier(comm);
    for (int step = 2; step < 6; ++step) send(step);
    for (int step = 6; step < 10; ++step) send(step);  // a burst: 7..9 in flight
    MPI_Barrier(comm);
    send(10);
  } else if (rank_ == 1) {
    recv(0, n);
    recv(1, short_count);
    MPI_Barrier(comm);
    for (int step = 2; step < 6; ++step) recv(step, n);
    recv(6, short_count);
    for (int step = 7; step < 10; ++step) {
      int rc = MPI_Recv(in.data(), n, MPI_DOUBLE, 0, 7, comm, MPI_STATUS_IGNORE);
      CHECK((rc == MPI_SUCCESS && same(in, message(0, 7, step, n))) || is_adacomp_error(rc),
            "truncation(%d): in-flight message %d: rc %d", short_count, step, rc);
    }
    MPI_Barrier(comm);
    recv(10, n);
  } else {
    MPI_Barrier(comm);
    MPI_Barrier(comm);
  }
  MPI_Comm_free(&comm);
}

// Unrelated smooth fields each step: the value coder beats XOR, so after a
// few messages it lost the channel stops keeping references.
void channel_sleeps() {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const size_t n = 2048;
  adacomp_interstep_memory before{}, after{};
  adacomp_get_interstep_memory(&before);
  for (int step = 0; step < 70; ++step) {
    std::vector<double> out(n), in(n), expect(n);
    for (size_t i = 0; i < n; ++i) {
      out[i] = std::sin(i * 0.002 + step * 1.7 + rank_);
      expect[i] = std::sin(i * 0.002 + step * 1.7 + prev_);
    }
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, 8, in.data(), n, MPI_DOUBLE, prev_, 8, comm,
                 MPI_STATUS_IGNORE);
    CHECK(same(in, expect), "sleeping channel step %d", step);
  }
  adacomp_get_interstep_memory(&after);
  if (expect_interstep)
    CHECK(after.send_bytes == before.send_bytes,
          "channel without inter-step gain still holds %llu reference bytes (before %llu)",
          after.send_bytes - before.send_bytes, before.send_bytes);
  MPI_Comm_free(&comm);
}

// The deprecated pre-rename names (include/adacomp.h) still work.
void deprecated_names_agree(const adacomp_op_stats& send) {
  CHECK(send.xor_calls == send.interstep_calls, "xor_calls %llu != interstep_calls %llu",
        send.xor_calls, send.interstep_calls);
  adacomp_interstep_memory now{};
  adacomp_get_interstep_memory(&now);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  adacomp_xor_memory old{};
  CHECK(adacomp_get_xor_memory(&old) == 0 && old.send_peak == now.send_peak &&
            old.recv_peak == now.recv_peak,
        "adacomp_get_xor_memory disagrees with adacomp_get_interstep_memory");
  CHECK(adacomp_override_xor(-1) == 0, "adacomp_override_xor(-1) failed");
#pragma GCC diagnostic pop
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--off")) expect_interstep = false;
    if (!std::strcmp(argv[i], "--budget") && i + 1 < argc)
      budget = std::strtoull(argv[++i], nullptr, 10);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ + size_ - 1) % size_;

  series_exchange();
  reordered_completion();
  probes_between_receives();
  persistent_and_derived();
  probed_then_persistent();
  if (size_ > 1) any_source();
  budget_pressure();
  if (size_ > 1) {
    truncation(1000);  // the channel record survives the truncation
    truncation(1);     // it does not: later frames of that sender must not wait
  }
  channel_sleeps();

  adacomp_op_stats send = op_stats("send"), recv = op_stats("recv");
  if (expect_interstep) {
    CHECK(send.interstep_calls > 0 && recv.interstep_calls > 0,
          "no inter-step frames: sent %llu, received %llu", send.interstep_calls,
          recv.interstep_calls);
  } else {
    CHECK(send.interstep_calls == 0 && recv.interstep_calls == 0,
          "inter-step frames with ADACOMP_INTERSTEP=off");
  }
  CHECK(send.compressed_calls > 0, "nothing compressed");
  deprecated_names_agree(send);
  if (budget) {
    adacomp_interstep_memory m{};
    adacomp_get_interstep_memory(&m);
    // Every rank receives from one ring neighbour (rank 0 also from all
    // others in any_source, whose channels stay within their senders' budget).
    const size_t senders = rank_ == 0 ? static_cast<size_t>(size_ > 1 ? size_ - 1 : 1) : 1;
    CHECK(m.send_peak <= budget, "send references peaked at %llu > budget %zu", m.send_peak,
          budget);
    CHECK(m.recv_peak <= budget * senders, "receive references peaked at %llu > %zu x %zu",
          m.recv_peak, budget, senders);
  }
  return finish_test("p2p_interstep");
}
