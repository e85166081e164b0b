// Minimal assertion helpers for the MPI tests: a failed check prints where
// and why, and the rank exits non-zero at the end (after the collectives it
// still owes its peers).
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "adacomp.h"

inline int g_failures = 0;
inline int g_checks = 0;

#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    ++g_checks;                                                                              \
    if (!(cond)) {                                                                           \
      ++g_failures;                                                                          \
      int rank_ = -1;                                                                        \
      MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                                 \
      std::fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: ", rank_, __FILE__, __LINE__, \
                   #cond);                                                                   \
      std::fprintf(stderr, __VA_ARGS__);                                                     \
      std::fputc('\n', stderr);                                                              \
    }                                                                                        \
  } while (0)

// Every predefined C type MPI allows in arithmetic reductions, as X(C++
// type, MPI datatype).
#define FOR_EACH_ARITHMETIC_TYPE(X)             \
  X(signed char, MPI_SIGNED_CHAR)               \
  X(unsigned char, MPI_UNSIGNED_CHAR)           \
  X(short, MPI_SHORT)                           \
  X(unsigned short, MPI_UNSIGNED_SHORT)         \
  X(int, MPI_INT)                               \
  X(unsigned, MPI_UNSIGNED)                     \
  X(long, MPI_LONG)                             \
  X(unsigned long, MPI_UNSIGNED_LONG)           \
  X(long long, MPI_LONG_LONG)                   \
  X(unsigned long long, MPI_UNSIGNED_LONG_LONG) \
  X(int8_t, MPI_INT8_T)                         \
  X(int16_t, MPI_INT16_T)                       \
  X(int32_t, MPI_INT32_T)                       \
  X(int64_t, MPI_INT64_T)                       \
  X(uint8_t, MPI_UINT8_T)                       \
  X(uint16_t, MPI_UINT16_T)                     \
  X(uint32_t, MPI_UINT32_T)                     \
  X(uint64_t, MPI_UINT64_T)                     \
  X(float, MPI_FLOAT)                           \
  X(double, MPI_DOUBLE)                         \
  X(long double, MPI_LONG_DOUBLE)

// The start the MPI tests share: MPI_Init, then this rank and the size of
// MPI_COMM_WORLD.
inline void start_test(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

// A duplicate of MPI_COMM_WORLD whose errors return to the caller: the tests
// of error paths check return codes on it, while MPI_COMM_WORLD keeps its
// fatal handler (an error raised there still kills the test).
inline MPI_Comm error_returning_comm() {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return comm;
}

// Calls of the handler of error_counting_comm(): errors the library raises
// from Wait/Test of a nonblocking call reach the handler, not a return code.
inline int g_errors_seen = 0;
inline void count_error(MPI_Comm*, int*, ...) { ++g_errors_seen; }
// A duplicate of MPI_COMM_WORLD whose error handler counts into
// g_errors_seen (and returns). Free the comm with MPI_Comm_free.
inline MPI_Comm error_counting_comm() {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Errhandler handler;
  MPI_Comm_create_errhandler(count_error, &handler);
  MPI_Comm_set_errhandler(comm, handler);
  MPI_Errhandler_free(&handler);  // the comm keeps its own reference
  return comm;
}

// The MPI datatype of a C++ element type the nonblocking tests use.
template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<int>() {
  return MPI_INT;
}
template <>
inline MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_type<long long>() {
  return MPI_LONG_LONG;
}
template <>
inline MPI_Datatype mpi_type<unsigned char>() {
  return MPI_UNSIGNED_CHAR;
}

inline adacomp_op_stats op_stats(const char* op) {
  adacomp_op_stats s{};
  if (adacomp_get_stats(op, &s) != 0) {
    std::fprintf(stderr, "unknown op %s\n", op);
    std::abort();
  }
  return s;
}

// True when rc is an error code whose text names AdaComp.
// Whether a node of ADACOMP_NODE_MAP holds two ranks of `comm` (collective):
// the library's reductions and Bcast on it are node-aware, and their
// persistent forms pass through (coll/plan.h, plan_call).
inline bool node_aware(MPI_Comm comm) {
  const char* map = std::getenv("ADACOMP_NODE_MAP");
  if (!map) return false;
  int rank, size, node = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(comm, &size);
  for (int start = 0; *map; ++node) {
    start += std::atoi(map);
    if (rank < start) break;
    while (*map && *map != ',') ++map;
    if (*map == ',') ++map;
  }
  std::vector<int> nodes(static_cast<size_t>(size));
  PMPI_Allgather(&node, 1, MPI_INT, nodes.data(), 1, MPI_INT, comm);
  std::sort(nodes.begin(), nodes.end());
  return std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end();
}

inline bool is_adacomp_error(int rc) {
  if (rc == MPI_SUCCESS) return false;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::strstr(text, "AdaComp") != nullptr;
}

// FNV-1a of n bytes: results compared across ranks by hash.
inline uint64_t fnv(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const uint8_t*>(p)[i]) * 1099511628211ull;
  return h;
}

// True when every rank of comm holds the same hash.
inline bool same_on_all_ranks(uint64_t h, MPI_Comm comm) {
  uint64_t v[2] = {h, ~h}, m[2];
  PMPI_Allreduce(v, m, 2, MPI_UINT64_T, MPI_MAX, comm);
  int ok = m[0] == h && m[1] == ~h, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
  return all;
}

// What this rank writes to stderr while `f` runs: the library's messages,
// as the user sees them.
template <typename F>
std::string captured_stderr(F f) {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) text += static_cast<char>(c);
  std::fclose(tmp);
  return text;
}

// True when `text` holds the library's error message for MPI_<call>.
inline bool reports_call(const std::string& text, const char* call) {
  return text.find(std::string("MPI_") + call + ": AdaComp") != std::string::npos;
}
#define CHECK_REPORTS(text, call) \
  CHECK(reports_call(text, call), "no 'MPI_%s: AdaComp' in: %s", call, (text).c_str())

// How check_failed_completion completes a request.
enum class Completion { wait, test_loop };
// Completes `req`, a compressed call on corrupt frames; where this rank
// `fails`, checks that completion returned an AdaComp error and that the
// message names MPI_<call>, the call the user made.
inline void check_failed_completion(MPI_Request* req, bool fails, const char* call,
                                    Completion how = Completion::wait) {
  int rc = MPI_SUCCESS, flag = 0;
  const std::string text = captured_stderr([&] {
    if (how == Completion::wait)
      rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    else
      while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
  });
  if (!fails) return;
  CHECK(is_adacomp_error(rc), "%s %s returned %d", call, how == Completion::wait ? "Wait" : "Test",
        rc);
  CHECK_REPORTS(text, call);
}

// Frees `comm` of an error test after checking that the errors left it
// usable.
inline void free_usable(MPI_Comm* comm) {
  int size, one = 1, total = 0;
  MPI_Comm_size(*comm, &size);
  const int rc = PMPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, *comm);
  CHECK(rc == MPI_SUCCESS && total == size, "communicator unusable after the error");
  MPI_Comm_free(comm);
}

// Ends the test: every rank reports, the job fails if any rank failed.
inline int finish_test(const char* name) {
  int failures = 0, checks = 0;
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("%s: %d checks, %d failed\n", name, checks, failures);
  MPI_Finalize();
  return failures == 0 && checks > 0 ? 0 : 1;
}
