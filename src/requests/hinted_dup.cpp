#include "requests/hinted_dup.h"

#include "requests/registry.h"
#include "runtime/comm_hints.h"

namespace adacomp {
namespace {

// MPI_Comm_idup_with_info's agreement, started beside the duplication on
// the old communicator and concluded on the new one when the application
// completes the duplication's request (the new handle is valid only then).
class HintedDup : public LibraryRequest {
 public:
  explicit HintedDup(MPI_Comm* newcomm) : newcomm_(newcomm) {}
  HintVote vote;
  MPI_Request agreement = MPI_REQUEST_NULL;
  int finish(MPI_Request, MPI_Status*, bool, bool, const char*) override {
    PMPI_Wait(&agreement, MPI_STATUS_IGNORE);
    const int rc = conclude(*newcomm_, vote, "Comm_idup_with_info");
    delete this;
    return rc;
  }

 private:
  MPI_Comm* newcomm_;
};

}  // namespace

int idup_with_hints(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
#if MPI_VERSION >= 4
  const int rc = PMPI_Comm_idup_with_info(comm, info, newcomm, request);
  if (rc != MPI_SUCCESS || !takes_hints(comm)) return rc;
  auto* dup = new HintedDup(newcomm);
  cast_vote(comm, info, true, &dup->vote);
  PMPI_Iallreduce(dup->vote.vote, dup->vote.widest, kAgreeValues, MPI_DOUBLE, MPI_MAX, comm,
                  &dup->agreement);
  register_request(*request, dup);
  return rc;
#else
  (void)comm, (void)info, (void)newcomm, (void)request;
  return MPI_ERR_OTHER;  // not reached: MPI 3 has no MPI_Comm_idup_with_info
#endif
}

}  // namespace adacomp
