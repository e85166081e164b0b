#include "decision/operation.h"

namespace adacomp {
namespace {

// In the order of enum OpKind: report key, and the name after "MPI_".
struct OpNames {
  const char* key;
  const char* display;
};
constexpr OpNames kOpNames[] = {
    {"allreduce", "Allreduce"},
    {"bcast", "Bcast"},
    {"reduce", "Reduce"},
    {"send", "Send"},
    {"recv", "Recv"},
    {"allgather", "Allgather"},
    {"allgatherv", "Allgatherv"},
    {"gather", "Gather"},
    {"gatherv", "Gatherv"},
    {"scatter", "Scatter"},
    {"scatterv", "Scatterv"},
    {"alltoall", "Alltoall"},
    {"alltoallv", "Alltoallv"},
    {"reduce_scatter", "Reduce_scatter"},
    {"reduce_scatter_block", "Reduce_scatter_block"},
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == static_cast<int>(OpKind::kCount),
              "a name for every OpKind");

}  // namespace

const char* op_name(OpKind op) { return kOpNames[static_cast<int>(op)].key; }
std::string call_name(OpKind op, CallForm form) {
  const OpNames& n = kOpNames[static_cast<int>(op)];
  switch (form) {
    case CallForm::nonblocking:
      return std::string("I") + n.key;  // MPI_Iallreduce
    case CallForm::persistent:
      return std::string(n.display) + "_init";
    case CallForm::blocking:
      break;
  }
  return n.display;
}

}  // namespace adacomp
