// Locality on the emulated cluster (tools/cluster.sh): every rank prints its
// hostname and the size of its MPI_COMM_TYPE_SHARED communicator, and the job
// fails unless that communicator holds exactly the ranks with the same
// hostname and the nodes match LAYOUT ("2x2" or "1,2,3", ranks filling node 0
// first).
//   cluster_locality LAYOUT [--exchange BYTES]
// --exchange also times an MPI_Sendrecv of BYTES each way between rank 0 and
// every other rank (best of 5), to show which pairs cross a shaped link.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check.h"

namespace {

// "2x2" -> {2, 2}; "1,2,3" -> {1, 2, 3}; empty on a malformed layout.
std::vector<int> parse_layout(const std::string& s) {
  std::vector<int> nodes;
  const size_t x = s.find('x');
  if (x != std::string::npos) {
    const int n = std::atoi(s.c_str()), r = std::atoi(s.c_str() + x + 1);
    if (n > 0 && r > 0) nodes.assign(n, r);
    return nodes;
  }
  for (size_t pos = 0; pos <= s.size();) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    const int r = std::atoi(s.substr(pos, comma - pos).c_str());
    if (r <= 0) return {};
    nodes.push_back(r);
    pos = comma + 1;
  }
  return nodes;
}

// A barrier that sleeps while it waits: ranks not in the timed pair must not
// take the CPU from it (MPIs busy-poll, and the emulated nodes share cores).
void sleeping_barrier() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

double exchange_ms(int peer, std::vector<char>& out, std::vector<char>& in) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    MPI_Sendrecv(out.data(), static_cast<int>(out.size()), MPI_BYTE, peer, 0, in.data(),
                 static_cast<int>(in.size()), MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    best = std::min(
        best,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  const std::vector<int> layout = argc > 1 ? parse_layout(argv[1]) : std::vector<int>{};
  long exchange = 0;
  if (argc > 3 && std::strcmp(argv[2], "--exchange") == 0) exchange = std::atol(argv[3]);
  if (layout.empty()) {
    if (rank == 0) std::fprintf(stderr, "usage: cluster_locality LAYOUT [--exchange BYTES]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len;
  MPI_Get_processor_name(host, &len);
  std::vector<char> hosts(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  auto host_of = [&](int r) {
    return std::string(&hosts[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  };

  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size, node_rank;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_rank(node, &node_rank);
  // Every member of my node communicator has my hostname, and it has all of them.
  std::vector<int> members(node_size);
  MPI_Allgather(&rank, 1, MPI_INT, members.data(), 1, MPI_INT, node);
  int ok = 1;
  for (int r : members) ok &= host_of(r) == host;
  int same_host = 0;
  for (int r = 0; r < size; ++r) same_host += host_of(r) == host;
  ok &= same_host == node_size;
  // Node k holds ranks sum(layout[0..k)) ... in order, on a host of its own.
  int first = 0, expected_node = -1, total = 0;
  for (int r : layout) total += r;
  for (size_t k = 0; k < layout.size() && expected_node < 0; ++k) {
    if (rank < first + layout[k])
      expected_node = static_cast<int>(k);
    else
      first += layout[k];
  }
  ok &= total == size && expected_node >= 0 && node_size == layout[expected_node] &&
        node_rank == rank - first;
  int all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);

  int lines[2] = {node_size, node_rank};
  std::vector<int> all(2 * static_cast<size_t>(size));
  MPI_Gather(lines, 2, MPI_INT, all.data(), 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      std::printf("rank %d host %s node_size %d node_rank %d\n", r, host_of(r).c_str(), all[2 * r],
                  all[2 * r + 1]);
    std::printf("layout %s: %s\n", argv[1], all_ok ? "ok" : "MISMATCH");
  }

  if (exchange > 0) {
    std::vector<char> out(exchange, 1), in(exchange);
    for (int peer = 1; peer < size; ++peer) {
      sleeping_barrier();
      if (rank != 0 && rank != peer) continue;
      const double ms = exchange_ms(rank == 0 ? peer : 0, out, in);
      if (rank == 0)
        std::printf("exchange %ld bytes rank 0 <-> rank %d (%s node): %.2f ms\n", exchange, peer,
                    host_of(peer) == host ? "same" : "other", ms);
    }
    sleeping_barrier();
  }
  MPI_Comm_free(&node);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
