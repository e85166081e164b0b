// With ADACOMP_FAULT=corrupt-frames every frame the library sends is damaged.
// Receivers must detect it, every rank must still finish the call (no hang),
// and the error must reach the application through its error handler.
#include <cstring>
#include <vector>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();

  std::vector<double> in(50000, 1.0 + rank), out(50000);
  int rc = MPI_Allreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm);
  if (size > 1) CHECK(is_adacomp_error(rc), "allreduce returned %d", rc);
  rc = MPI_Bcast(in.data(), 50000, MPI_DOUBLE, 0, comm);
  if (size > 1) CHECK(rank == 0 || is_adacomp_error(rc), "bcast returned %d on a receiver", rc);
  rc = MPI_Reduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (size > 1) CHECK(rank != 0 || is_adacomp_error(rc), "reduce returned %d at the root", rc);

  // The data-movement collectives (the exchange engine) report it too.
  const int block = 10000;
  std::vector<double> blocks(static_cast<size_t>(block) * size, 2.0 + rank),
      gathered(blocks.size());
  rc = MPI_Gather(blocks.data(), block, MPI_DOUBLE, gathered.data(), block, MPI_DOUBLE, 0, comm);
  if (size > 1) CHECK(rank != 0 || is_adacomp_error(rc), "gather returned %d at the root", rc);
  rc = MPI_Alltoall(blocks.data(), block, MPI_DOUBLE, gathered.data(), block, MPI_DOUBLE, comm);
  if (size > 1) CHECK(is_adacomp_error(rc), "alltoall returned %d", rc);

  free_usable(&comm);

  // The default handler is fatal: the job must stop with the message, which
  // names the call (--fatal gather, --fatal alltoall; Allreduce by default).
  if (argc > 1 && std::strcmp(argv[1], "--fatal") == 0) {
    const char* call = argc > 2 ? argv[2] : "allreduce";
    if (std::strcmp(call, "gather") == 0)
      MPI_Gather(blocks.data(), block, MPI_DOUBLE, gathered.data(), block, MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);
    else if (std::strcmp(call, "alltoall") == 0)
      MPI_Alltoall(blocks.data(), block, MPI_DOUBLE, gathered.data(), block, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    else
      MPI_Allreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(size == 1, "corrupt %s on MPI_COMM_WORLD returned instead of aborting", call);
  }
  return finish_test("errors");
}
