// Reduce on rails (coll/reduce_rails.cpp): the schedule of a planned
// Reduce whose layout is Layout::rails, the node groups made and the root
// checked.
#pragma once

#include <memory>

#include <mpi.h>

#include "coll/plan.h"
#include "coll/schedule.h"

namespace adacomp {

std::unique_ptr<Schedule> rails_reduce_schedule(MPI_Comm app, const CollPlan& plan, CallForm form,
                                                int tag, const void* sendbuf, void* recvbuf,
                                                int count, MPI_Datatype type, MPI_Op op, int root);

}  // namespace adacomp
