// Datatypes that are dense but list their bytes backwards
// (MPI_Type_vector(n, 1, -1, MPI_INT), MPI_Type_vector(n, k, -k, ...)):
// size == extent == true extent, yet copying them as one run of bytes
// reverses the message. Each call below has the backward type on one side
// and the basic type on the other, or on both sides; the received ints must
// be the ones plain MPI delivers.
//   test_backward_types [N [ITERATIONS]]   N ints per message (default 20000)
#include <algorithm>
#include <vector>

#include "check.h"

namespace {

int g_rank = 0, g_size = 1;

// Counts the ints of `got` that differ from `want`.
void expect(const char* call, int it, const std::vector<int>& got, const std::vector<int>& want) {
  long wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
  CHECK(wrong == 0, "%s, iteration %d: %ld of %zu ints wrong", call, it, wrong, want.size());
}

std::vector<int> values(int n, int seed) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i * 7 + seed * 1000003;
  return v;
}

std::vector<int> reversed(const std::vector<int>& v) { return {v.rbegin(), v.rend()}; }

// MPI_Type_vector(n, 1, -1, MPI_INT): one element of it, from the last
// int of a buffer, lists the buffer from its end to its start.
void point_to_point(int n, int it, MPI_Datatype rev) {
  const std::vector<int> base = values(n, g_rank + it);
  std::vector<int> out(static_cast<size_t>(n), -1);
  MPI_Sendrecv(&base[n - 1], 1, rev, g_rank, 1, out.data(), n, MPI_INT, g_rank, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  expect("Sendrecv to self, backward to ints", it, out, reversed(base));
  if (g_size < 2 || g_rank > 1) return;
  const std::vector<int> sent = values(n, it);  // rank 0's buffer
  std::fill(out.begin(), out.end(), -1);
  if (g_rank == 0) MPI_Send(&base[n - 1], 1, rev, 1, 0, MPI_COMM_WORLD);
  if (g_rank == 1) {
    MPI_Recv(out.data(), n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("Send backward, Recv ints", it, out, reversed(sent));
  }
  std::fill(out.begin(), out.end(), -1);
  if (g_rank == 0) MPI_Send(&base[n - 1], 1, rev, 1, 2, MPI_COMM_WORLD);
  if (g_rank == 1) {
    MPI_Recv(&out[n - 1], 1, rev, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("Send and Recv both backward", it, out, sent);
  }
  std::fill(out.begin(), out.end(), -1);
  if (g_rank == 0) MPI_Send(sent.data(), n, MPI_INT, 1, 3, MPI_COMM_WORLD);
  if (g_rank == 1) {
    MPI_Recv(&out[n - 1], 1, rev, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect("Send ints, Recv backward", it, out, reversed(sent));
  }
}

void broadcast(int n, int it, MPI_Datatype rev) {
  const std::vector<int> sent = values(n, it);
  std::vector<int> buf = g_rank == 0 ? sent : std::vector<int>(static_cast<size_t>(n), -1);
  if (g_rank == 0) {
    MPI_Bcast(&buf[n - 1], 1, rev, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(buf.data(), n, MPI_INT, 0, MPI_COMM_WORLD);
    expect("Bcast backward to ints", it, buf, reversed(sent));
  }
  // Both sides backward: every rank's buffer ends as the root's, in order.
  if (g_rank != 0) std::fill(buf.begin(), buf.end(), -1);
  MPI_Bcast(&buf[n - 1], 1, rev, 0, MPI_COMM_WORLD);
  expect("Bcast both sides backward", it, buf, sent);
}

// Alltoall(v) with blocks of k ints sent as MPI_Type_vector(n / k, k, -k,
// MPI_INT) from each block's last k ints: every block arrives with its
// k-int pieces in reverse order. Alltoallv with the same type on the
// receiving side instead.
void exchange(int n, int k, int it) {
  const int pieces = n / k, block = pieces * k;
  MPI_Datatype back;
  MPI_Type_vector(pieces, k, -k, MPI_INT, &back);
  MPI_Type_commit(&back);
  const size_t total = static_cast<size_t>(block) * g_size;
  std::vector<int> in(total), out(total, -1), want(total);
  for (size_t i = 0; i < total; ++i) in[i] = static_cast<int>(i) * 3 + g_rank * 100003 + it;
  // Block j of rank r's input, pieces reversed, is block r of rank j's output.
  auto piece_reversed = [&](int from, int j, size_t i) {
    const size_t p = i / k, within = i % k;
    const size_t src = j * static_cast<size_t>(block) + (pieces - 1 - p) * k + within;
    return static_cast<int>(src) * 3 + from * 100003 + it;
  };
  for (int r = 0; r < g_size; ++r)
    for (size_t i = 0; i < static_cast<size_t>(block); ++i)
      want[r * static_cast<size_t>(block) + i] = piece_reversed(r, g_rank, i);
  // The backward type's extent is its whole block: block j starts its
  // backward walk at the last piece of block j.
  const int* last = &in[static_cast<size_t>(block - k)];
  MPI_Alltoall(last, 1, back, out.data(), block, MPI_INT, MPI_COMM_WORLD);
  expect("Alltoall backward to ints", it, out, want);

  std::vector<int> counts(static_cast<size_t>(g_size), 1), displs(static_cast<size_t>(g_size));
  std::vector<int> int_counts(static_cast<size_t>(g_size), block), int_displs(displs);
  for (int j = 0; j < g_size; ++j) displs[j] = j, int_displs[j] = j * block;
  std::fill(out.begin(), out.end(), -1);
  MPI_Alltoallv(last, counts.data(), displs.data(), back, out.data(), int_counts.data(),
                int_displs.data(), MPI_INT, MPI_COMM_WORLD);
  expect("Alltoallv backward to ints", it, out, want);

  // Received backward: the ints sent in order land with pieces reversed.
  std::fill(out.begin(), out.end(), -1);
  MPI_Alltoallv(in.data(), int_counts.data(), int_displs.data(), MPI_INT,
                &out[static_cast<size_t>(block - k)], counts.data(), displs.data(), back,
                MPI_COMM_WORLD);
  for (int r = 0; r < g_size; ++r)
    for (size_t i = 0; i < static_cast<size_t>(block); ++i) {
      const size_t p = i / k, within = i % k;
      const size_t src = g_rank * static_cast<size_t>(block) + (pieces - 1 - p) * k + within;
      want[r * static_cast<size_t>(block) + i] = static_cast<int>(src) * 3 + r * 100003 + it;
    }
  expect("Alltoallv ints to backward", it, out, want);

  // Both sides backward: the pieces are reversed twice, so arrive in order.
  std::fill(out.begin(), out.end(), -1);
  MPI_Alltoallv(last, counts.data(), displs.data(), back, &out[static_cast<size_t>(block - k)],
                counts.data(), displs.data(), back, MPI_COMM_WORLD);
  for (int r = 0; r < g_size; ++r)
    for (size_t i = 0; i < static_cast<size_t>(block); ++i)
      want[r * static_cast<size_t>(block) + i] =
          static_cast<int>(g_rank * static_cast<size_t>(block) + i) * 3 + r * 100003 + it;
  expect("Alltoallv both sides backward", it, out, want);
  MPI_Type_free(&back);
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &g_rank, &g_size);
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 3;
  MPI_Datatype rev;
  MPI_Type_vector(n, 1, -1, MPI_INT, &rev);
  MPI_Type_commit(&rev);
  for (int it = 0; it < iterations; ++it) {
    point_to_point(n, it, rev);
    broadcast(n, it, rev);
    // Per peer: n / size ints, in pieces of 1 and of 64 ints.
    for (int k : {1, 64}) exchange(std::max(n / g_size, k), k, it);
  }
  MPI_Type_free(&rev);
  return finish_test("backward_types");
}
