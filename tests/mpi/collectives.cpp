// Allreduce, Reduce and Bcast through AdaComp against plain PMPI, for every
// predefined type and op, odd sizes, MPI_IN_PLACE, user-defined ops and
// several communicators. The library's statistics must show that every
// eligible call really took the compressed path (or, under ADACOMP_MODE=raw,
// that none did).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.h"

namespace {

bool g_expect_compression = true;
// --quick: a smaller matrix for oversubscribed runs on an MPI that busy-polls
// (MPICH over UCX takes seconds per thousand collectives there).
bool g_quick = false;
const int kCounts[] = {0, 1, 7, 1000, 20011};
const int kQuickCounts[] = {0, 7, 20011};

template <typename F>
void for_each_count(F f) {
  if (g_quick)
    for (int c : kQuickCounts) f(c);
  else
    for (int c : kCounts) f(c);
}

template <typename T>
T value(int rank, size_t i, MPI_Op op) {
  if constexpr (std::is_floating_point_v<T>) {
    if (op == MPI_PROD) return static_cast<T>(1.0 + 0.001 * std::sin(0.01 * i + rank));
    return static_cast<T>(100.0 * std::sin(1e-3 * i) + 7.0 * rank + 1e-3 * (i % 17));
  } else {
    if (op == MPI_PROD) return static_cast<T>((i + rank) % 3 == 0 ? 2 : 1);
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
      return static_cast<T>((i * 5 + rank) % 3 == 0);
    // 8-bit sums stay below 128 on 4 ranks: Open MPI 4.1's vectorised ops
    // saturate instead of wrapping, so overflow would make even PMPI's result
    // depend on the order of operations.
    return static_cast<T>((i * 7 + rank * 13) % (sizeof(T) == 1 ? 31 : 100));
  }
}

template <typename T>
bool close(T a, T b, MPI_Op op) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (op == MPI_MAX || op == MPI_MIN) return a == b;
    T tol = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
    return std::fabs(a - b) <= tol * std::fmax(std::fabs(a), std::fabs(b)) + tol;
  } else {
    return a == b;
  }
}

const char* comm_name(MPI_Comm comm) {
  static char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_get_name(comm, name, &len);
  return len ? name : "unnamed";
}

// One Allreduce or Reduce case; compares with PMPI and checks the path taken.
template <typename T>
void reduction_case(MPI_Comm comm, MPI_Datatype type, const char* tname, MPI_Op op,
                    const char* oname, int count, bool in_place, bool is_reduce,
                    bool eligible = true) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = count % size;
  std::vector<T> in(count + 1), out(count + 1), ref(count + 1);
  for (int i = 0; i < count; ++i) in[i] = value<T>(rank, i, op);
  if (is_reduce)
    PMPI_Reduce(in.data(), ref.data(), count, type, op, root, comm);
  else
    PMPI_Allreduce(in.data(), ref.data(), count, type, op, comm);

  const char* opname = is_reduce ? "reduce" : "allreduce";
#ifdef MPICH_VERSION
  // MPICH 4.0's own MPI_Reduce crashes on MPI_IN_PLACE at a non-zero root
  // for large counts; only AdaComp's compressed path can be tested there.
  bool compressed = g_expect_compression && eligible && count > 0;
  if (is_reduce && in_place && root != 0 && count * sizeof(T) > 2048 && !compressed) return;
#endif
  adacomp_op_stats before = op_stats(opname);
  int rc;
  bool root_in_place = in_place && (!is_reduce || rank == root);
  if (root_in_place) {
    out = in;
    rc = is_reduce ? MPI_Reduce(MPI_IN_PLACE, out.data(), count, type, op, root, comm)
                   : MPI_Allreduce(MPI_IN_PLACE, out.data(), count, type, op, comm);
  } else {
    rc = is_reduce ? MPI_Reduce(in.data(), out.data(), count, type, op, root, comm)
                   : MPI_Allreduce(in.data(), out.data(), count, type, op, comm);
  }
  adacomp_op_stats after = op_stats(opname);
  CHECK(rc == MPI_SUCCESS, "%s rc=%d", opname, rc);
  bool expect = g_expect_compression && eligible && count > 0;
  CHECK((after.compressed_calls - before.compressed_calls == 1) == expect,
        "%s %s %s count=%d on %s: compressed=%llu, expected %d", opname, tname, oname, count,
        comm_name(comm), after.compressed_calls - before.compressed_calls, expect);

  if (!is_reduce || rank == root) {
    int bad = 0;
    for (int i = 0; i < count; ++i)
      if (!close(out[i], ref[i], op)) ++bad;
    CHECK(bad == 0, "%s %s %s count=%d in_place=%d on %s: %d elements differ from PMPI", opname,
          tname, oname, count, in_place, comm_name(comm), bad);
  }
  // Identical on every rank, bit for bit (long double has padding bytes).
  if (!is_reduce && !std::is_same_v<T, long double>)
    CHECK(same_on_all_ranks(fnv(out.data(), count * sizeof(T)), comm),
          "allreduce %s %s count=%d: ranks hold different results", tname, oname, count);
}

template <typename T>
void reduction_type(MPI_Comm comm, MPI_Datatype type, const char* tname) {
  struct {
    MPI_Op op;
    const char* name;
    bool integer_only;
  } ops[] = {{MPI_SUM, "sum", false},  {MPI_PROD, "prod", false}, {MPI_MAX, "max", false},
             {MPI_MIN, "min", false},  {MPI_BAND, "band", true},  {MPI_BOR, "bor", true},
             {MPI_BXOR, "bxor", true}, {MPI_LAND, "land", true},  {MPI_LOR, "lor", true},
             {MPI_LXOR, "lxor", true}};
  for (const auto& o : ops) {
    if (o.integer_only && std::is_floating_point_v<T>) continue;
    if (g_quick && o.op != MPI_SUM && o.op != MPI_MAX && o.op != MPI_BXOR) continue;
    for_each_count([&](int count) {
      for (int is_reduce = 0; is_reduce < 2; ++is_reduce)
        for (int in_place = 0; in_place < 2; ++in_place)
          reduction_case<T>(comm, type, tname, o.op, o.name, count, in_place, is_reduce);
    });
  }
}

// Special values must survive the lossless path bit for bit.
void special_values(MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int n = 4099;
  std::vector<double> in(n), out(n), ref(n);
  uint64_t nan_payload = 0x7ff8dead00000001ull;
  for (int i = 0; i < n; ++i) {
    double v = std::sin(0.01 * i);
    switch (i % 7) {
      case 0:
        std::memcpy(&v, &nan_payload, 8);
        break;
      case 1:
        v = std::numeric_limits<double>::infinity();
        break;
      case 2:
        v = -0.0;
        break;
      case 3:
        v = std::numeric_limits<double>::denorm_min() * (i + rank);
        break;
      default:
        break;
    }
    in[i] = v;
  }
  PMPI_Allreduce(in.data(), ref.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (!(std::isnan(ref[i]) ? std::isnan(out[i]) : std::memcmp(&out[i], &ref[i], 8) == 0)) ++bad;
  CHECK(bad == 0, "special values: %d elements differ", bad);
  // Bcast is pure data movement: NaN payloads must arrive exactly.
  if (rank != 0) std::fill(in.begin(), in.end(), 0.0);
  std::vector<double> expect(n);
  for (int i = 0; i < n; ++i) expect[i] = in[i];
  MPI_Bcast(in.data(), n, MPI_DOUBLE, 0, comm);
  PMPI_Bcast(expect.data(), n, MPI_DOUBLE, 0, comm);
  CHECK(std::memcmp(in.data(), expect.data(), n * 8) == 0, "bcast of special values differs");
}

void user_ops(MPI_Comm comm) {
  // Commutative: element-wise max of |x|, on doubles.
  MPI_Op absmax;
  MPI_Op_create(
      [](void* in, void* inout, int* len, MPI_Datatype*) {
        auto* a = static_cast<double*>(in);
        auto* b = static_cast<double*>(inout);
        for (int i = 0; i < *len; ++i) b[i] = std::fmax(std::fabs(a[i]), std::fabs(b[i]));
      },
      1, &absmax);
  reduction_case<double>(comm, MPI_DOUBLE, "double", absmax, "user-absmax", 5003, false, false);
  reduction_case<double>(comm, MPI_DOUBLE, "double", absmax, "user-absmax", 5003, true, true);
  MPI_Op_free(&absmax);

  // Non-commutative: must pass through to PMPI untouched.
  MPI_Op left;
  MPI_Op_create([](void*, void*, int*, MPI_Datatype*) {}, 0, &left);
  reduction_case<int>(comm, MPI_INT, "int", left, "user-noncommutative", 5003, false, false, false);
  reduction_case<int>(comm, MPI_INT, "int", left, "user-noncommutative", 5003, false, true, false);
  MPI_Op_free(&left);

  // A derived datatype in a reduction (with a user op, as MPI requires)
  // passes through too.
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Op pair_sum;
  MPI_Op_create(
      [](void* in, void* inout, int* len, MPI_Datatype*) {
        for (int i = 0; i < 2 * *len; ++i)
          static_cast<double*>(inout)[i] += static_cast<double*>(in)[i];
      },
      1, &pair_sum);
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> in(2000, 1.0 + rank), out(2000), ref(2000);
  adacomp_op_stats before = op_stats("allreduce");
  MPI_Allreduce(in.data(), out.data(), 1000, pair, pair_sum, comm);
  CHECK(op_stats("allreduce").compressed_calls == before.compressed_calls,
        "derived datatype was compressed");
  PMPI_Allreduce(in.data(), ref.data(), 1000, pair, pair_sum, comm);
  CHECK(out == ref, "derived datatype allreduce differs");
  MPI_Op_free(&pair_sum);
  MPI_Type_free(&pair);
}

void bcast_case(MPI_Comm comm, MPI_Datatype type, const char* tname, int count, int root,
                bool random_bytes) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  size_t span = static_cast<size_t>(extent) * (count + 1);
  std::vector<uint8_t> expect(span), buf(span);
  uint64_t x = 88172645463325252ull + count;
  for (size_t i = 0; i < span; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    expect[i] = random_bytes ? static_cast<uint8_t>(x) : static_cast<uint8_t>((i / 64) & 0x3);
  }
  // Gaps of non-contiguous types keep the receiver's own bytes.
  for (size_t i = 0; i < span; ++i) buf[i] = rank == root ? expect[i] : 0xEE;
  std::vector<uint8_t> ref(buf);
  adacomp_op_stats before = op_stats("bcast");
  int rc = MPI_Bcast(buf.data(), count, type, root, comm);
  adacomp_op_stats after = op_stats("bcast");
  PMPI_Bcast(ref.data(), count, type, root, comm);
  CHECK(rc == MPI_SUCCESS, "bcast rc=%d", rc);
  bool expect_c = g_expect_compression && count > 0;
  CHECK((after.compressed_calls - before.compressed_calls == 1) == expect_c,
        "bcast %s count=%d: compressed=%llu expected %d", tname, count,
        after.compressed_calls - before.compressed_calls, expect_c);
  CHECK(buf == ref, "bcast %s count=%d root=%d random=%d on %s: bytes differ from PMPI", tname,
        count, root, random_bytes, comm_name(comm));
}

void bcasts(MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  MPI_Datatype strided, block;
  MPI_Type_vector(3, 2, 5, MPI_INT, &strided);  // non-contiguous: packed path
  MPI_Type_commit(&strided);
  MPI_Type_contiguous(3, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  struct {
    MPI_Datatype t;
    const char* name;
  } types[] = {{MPI_BYTE, "byte"},
               {MPI_CHAR, "char"},
               {MPI_INT, "int"},
               {MPI_FLOAT, "float"},
               {MPI_DOUBLE, "double"},
               {MPI_INT64_T, "int64"},
               {strided, "vector(3,2,5,int)"},
               {block, "contiguous(3,double)"}};
  for (const auto& t : types)
    for_each_count([&](int count) {
      for (int root = 0; root < size; ++root)
        for (int random = 0; random < 2; ++random)
          bcast_case(comm, t.t, t.name, count, root, random);
    });
  MPI_Type_free(&strided);
  MPI_Type_free(&block);
}

void all_cases(MPI_Comm comm) {
#define TYPE(T, M) reduction_type<T>(comm, M, #M);
  FOR_EACH_ARITHMETIC_TYPE(TYPE)
#undef TYPE
  special_values(comm);
  user_ops(comm);
  bcasts(comm);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = std::getenv("ADACOMP_MODE");
  g_expect_compression = !(mode && (std::string(mode) == "raw" || std::string(mode) == "0"));
  g_quick = argc > 1 && std::string(argv[1]) == "--quick";
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  all_cases(MPI_COMM_WORLD);

  MPI_Comm split;  // uneven halves: rank counts differ between the two
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
  MPI_Comm_set_name(split, "split");
  all_cases(split);

  all_cases(MPI_COMM_SELF);

  // Intercommunicators pass through and still give the right answer.
  if (size >= 2) {
    MPI_Comm inter;
    // Split keys reverse the order, so each half's leader is its highest rank.
    int other = 1 - rank % 2;
    int remote_leader = (size - 1) % 2 == other ? size - 1 : size - 2;
    MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, remote_leader, 7, &inter);
    std::vector<int> in(4096, rank + 1), out(4096), ref(4096);
    adacomp_op_stats before = op_stats("allreduce");
    MPI_Allreduce(in.data(), out.data(), 4096, MPI_INT, MPI_SUM, inter);
    CHECK(op_stats("allreduce").compressed_calls == before.compressed_calls,
          "intercommunicator allreduce was compressed");
    PMPI_Allreduce(in.data(), ref.data(), 4096, MPI_INT, MPI_SUM, inter);
    CHECK(out == ref, "intercommunicator allreduce differs from PMPI");
    MPI_Comm_free(&inter);
  }
  MPI_Comm_free(&split);

  // Same data, same rank count: the very same result every time.
  std::vector<double> in(100003), a(100003), b(100003);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(1e-4 * i * (rank + 1)) / (1 + rank);
  MPI_Allreduce(in.data(), a.data(), 100003, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(in.data(), b.data(), 100003, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * 8) == 0, "repeated allreduce differs");
  if (rank == 0)
    std::printf("result fingerprint: %016llx\n", (unsigned long long)fnv(a.data(), a.size() * 8));

  return finish_test("collectives");
}
