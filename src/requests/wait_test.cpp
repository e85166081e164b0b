// The Wait and Test families over the registry (requests/wait_test.h).
#include "requests/wait_test.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "requests/registry.h"

namespace adacomp {
namespace {

enum class Form { one, all, any, some };

// One completion call: its form, whether it waits, and its arguments (the
// single forms' `status`, the multiple forms' `statuses`; a wait's flag is
// its own).
struct Call {
  const char* op;
  Form form;
  bool wait;
  int n;
  MPI_Request* reqs;
  int* flag = nullptr;      // one, all, any
  int* index = nullptr;     // any
  int* outcount = nullptr;  // some
  int* indices = nullptr;   // some
  MPI_Status* status = MPI_STATUS_IGNORE;
  MPI_Status* statuses = MPI_STATUSES_IGNORE;

  bool single() const { return form == Form::one || form == Form::any; }
  // The caller's statuses, or nullptr where it ignores them.
  MPI_Status* given() const {
    if (single()) return status == MPI_STATUS_IGNORE ? nullptr : status;
    return statuses == MPI_STATUSES_IGNORE ? nullptr : statuses;
  }
  // A wait's polling pass completed something (or failed).
  bool settled(int rc) const {
    if (rc != MPI_SUCCESS) return true;
    return form == Form::some ? *outcount != 0 : *flag != 0;
  }
};

// One completion call's scratch, a slot per request, uninitialized: inline
// for the small arrays of nearly every call, so that a Wait or Test
// allocates nothing; on the heap beyond.
template <class T>
class Slots {
 public:
  explicit Slots(size_t n)
      : heap_(n > kInline ? new T[n] : nullptr), data_(heap_ ? heap_.get() : inline_) {}
  Slots(const Slots&) = delete;
  Slots& operator=(const Slots&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  static constexpr size_t kInline = 8;
  T inline_[kInline];
  std::unique_ptr<T[]> heap_;
  T* data_;
};

void pause() { std::this_thread::yield(); }

bool outstanding() {
  const Progress* p = progress();
  return p && p->outstanding();
}

bool must_poll(bool outstanding, size_t n, LibraryRequest* const rs[]) {
  if (outstanding) return true;
  for (size_t i = 0; i < n; ++i)
    if (rs[i] && rs[i]->polled()) return true;
  return false;
}

// Requests the library completes while MPI has them inactive (served) come
// first: MPI's any and some forms would skip them, and PMPI_Wait on one
// returns at once with its empty status. Returns how many, with their
// indices and statuses in `indices` and `statuses`.
int take_served(int n, LibraryRequest* const rs[], MPI_Request reqs[], int max, int indices[],
                MPI_Status statuses[]) {
  int k = 0;
  for (int i = 0; i < n && k < max; ++i) {
    if (!rs[i] || !rs[i]->served()) continue;
    PMPI_Wait(&reqs[i], &statuses[k]);
    indices[k++] = i;
  }
  return k;
}

// One PMPI call of the call's form (its Test form when `test_form`) over the
// array, statuses in `ss`. Marks in `done` the requests it completed, and in
// `slot` where their statuses are. Returns its code.
int mpi_pass(const Call& c, LibraryRequest* const rs[], bool test_form, MPI_Status* ss,
             char done[], int slot[]) {
  int rc = MPI_SUCCESS;
  switch (c.form) {
    case Form::one:
      *c.flag = 1;
      rc = test_form ? PMPI_Test(c.reqs, c.flag, ss) : PMPI_Wait(c.reqs, ss);
      done[0] = (rc == MPI_SUCCESS || truncation(rc)) && *c.flag;
      slot[0] = 0;
      return rc;
    case Form::all:
      *c.flag = 1;
      rc = test_form ? PMPI_Testall(c.n, c.reqs, c.flag, ss) : PMPI_Waitall(c.n, c.reqs, ss);
      // A failure may be reported before the others complete (Open MPI):
      // those are still in flight (MPI_ERR_PENDING) and stay the library's.
      for (int i = 0; i < c.n; ++i) {
        done[i] = (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *c.flag &&
                     !(rc == MPI_ERR_IN_STATUS && ss[i].MPI_ERROR == MPI_ERR_PENDING);
        slot[i] = i;
      }
      return rc;
    case Form::any:
      *c.flag = 1;
      if (!take_served(c.n, rs, c.reqs, 1, c.index, ss))
        rc = test_form ? PMPI_Testany(c.n, c.reqs, c.index, c.flag, ss)
                       : PMPI_Waitany(c.n, c.reqs, c.index, ss);
      if ((rc == MPI_SUCCESS || truncation(rc)) && *c.flag && *c.index != MPI_UNDEFINED)
        done[*c.index] = 1, slot[*c.index] = 0;
      return rc;
    case Form::some:
      *c.outcount = take_served(c.n, rs, c.reqs, c.n, c.indices, ss);
      if (*c.outcount == 0)
        rc = test_form ? PMPI_Testsome(c.n, c.reqs, c.outcount, c.indices, ss)
                       : PMPI_Waitsome(c.n, c.reqs, c.outcount, c.indices, ss);
      if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *c.outcount != MPI_UNDEFINED)
        for (int k = 0; k < *c.outcount; ++k) done[c.indices[k]] = 1, slot[c.indices[k]] = k;
      return rc;
  }
  return rc;
}

// Finishes the library's requests the pass completed (`done`; the others
// are back in the registry). Channel frames among them are finished in
// channel order, whatever their order in the array: passes that finish what
// is ready, then waiting for the rest. A multiple completion (all, some)
// reports a failure as MPI_ERR_IN_STATUS with each completed status's
// MPI_ERROR set; a single one (one, any) leaves MPI_ERROR alone and returns
// the failure.
int finish_completed(const Call& c, size_t n, const MPI_Request handles[],
                     LibraryRequest* const rs[], const char done[], const int slot[],
                     MPI_Status* ss, int rc) {
  const int mpi_rc = rc;
  Slots<char> left(n);
  std::copy(done, done + n, left.data());
  for (bool may_wait = false;;) {
    bool remaining = false, progressed = false;
    for (size_t i = 0; i < n; ++i) {
      if (!rs[i] || !left[i]) continue;
      MPI_Status* s = &ss[slot[i]];
      const bool cut =
          truncation(mpi_rc) || (mpi_rc == MPI_ERR_IN_STATUS && truncation(s->MPI_ERROR));
      const int r = rs[i]->finish(handles[i], s, may_wait, cut, c.op);
      if (r == kNotYourTurn) {
        remaining = true;
        continue;
      }
      left[i] = 0;
      progressed = true;
      if (r == MPI_SUCCESS) continue;
      if (c.single()) {
        rc = r;
        continue;
      }
      if (rc == MPI_SUCCESS)  // MPI set no MPI_ERROR: the completed ones succeeded
        for (size_t j = 0; j < n; ++j)
          if (done[j]) ss[slot[j]].MPI_ERROR = MPI_SUCCESS;
      s->MPI_ERROR = r;
      rc = MPI_ERR_IN_STATUS;
    }
    if (!remaining) return rc;
    if (!progressed) may_wait = true;
  }
}

// One completion pass over the claimed requests `rs`.
int pass(const Call& c, LibraryRequest* const rs[], bool test_form) {
  const size_t n = static_cast<size_t>(c.n > 0 ? c.n : 0);
  Slots<MPI_Request> handles(n);
  std::copy(c.reqs, c.reqs + n, handles.data());
  Slots<MPI_Status> local(c.single() ? 1 : n);
  MPI_Status* given = c.given();
  MPI_Status* ss = given ? given : local.data();
  Slots<char> done(n);
  Slots<int> slot(n);
  for (size_t i = 0; i < n; ++i) done[i] = 0, slot[i] = -1;
  const int rc = mpi_pass(c, rs, test_form, ss, done.data(), slot.data());
  release_requests(c.n, handles.data(), rs, done.data());
  return finish_completed(c, n, handles.data(), rs, done.data(), slot.data(), ss, rc);
}

CallResult run(const Call& c);

// A polling MPI_Waitall is MPI_Wait on each request in turn, which the
// standard makes equivalent (MPI 4.0 section 3.7.5), rather than a Testall
// loop: MPICH 4.0's MPI_Testall fails with MPI_ERR_IN_STATUS, every status a
// success, once a persistent collective of its own (MPI_Barrier_init)
// completes in it (MPICH's coll/p_order under ADACOMP_NONBLOCKING=on).
int wait_in_turn(const Call& c) {
  std::vector<int> codes(static_cast<size_t>(c.n), MPI_SUCCESS);
  int first = MPI_SUCCESS;
  for (int i = 0; i < c.n; ++i) {
    int flag = 0;
    Call one{c.op, Form::one, true, 1, &c.reqs[i], &flag};
    one.status = c.given() ? &c.statuses[i] : MPI_STATUS_IGNORE;
    const CallResult r = run(one);
    codes[i] = r ? *r : PMPI_Wait(&c.reqs[i], one.status);
    if (first == MPI_SUCCESS) first = codes[i];
  }
  if (first == MPI_SUCCESS || !c.given()) return first;
  for (int i = 0; i < c.n; ++i) c.statuses[i].MPI_ERROR = codes[i];
  return MPI_ERR_IN_STATUS;
}

CallResult run(const Call& c) {
  const size_t n = static_cast<size_t>(c.n > 0 ? c.n : 0);
  for (;;) {
    const bool progress_outstanding = outstanding();
    if (!progress_outstanding && !requests_registered()) return kDeclined;
    Slots<LibraryRequest*> rs(n);
    const bool any = claim_requests(c.n, c.reqs, rs.data());
    const bool polling = must_poll(progress_outstanding, n, rs.data());
    if (!any && !polling) return kDeclined;
    if (polling && c.wait && c.form == Form::all) {
      Slots<char> none(n);
      std::fill_n(none.data(), n, 0);
      release_requests(c.n, c.reqs, rs.data(), none.data());
      return wait_in_turn(c);
    }
    if (polling) progress()->advance();
    const int rc = pass(c, rs.data(), !c.wait || polling);
    if (!c.wait || !polling || c.settled(rc)) return rc;
    pause();
  }
}

}  // namespace

namespace completion {

CallResult wait(const char* op, MPI_Request* req, MPI_Status* status) {
  int flag = 0;
  Call c{op, Form::one, true, 1, req, &flag};
  c.status = status;
  return run(c);
}

CallResult test(const char* op, MPI_Request* req, int* flag, MPI_Status* status) {
  Call c{op, Form::one, false, 1, req, flag};
  c.status = status;
  return run(c);
}

CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  int flag = 0;
  Call c{"Waitall", Form::all, true, n, reqs, &flag};
  c.statuses = statuses;
  return run(c);
}

CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  Call c{"Testall", Form::all, false, n, reqs, flag};
  c.statuses = statuses;
  return run(c);
}

CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  int flag = 0;
  Call c{"Waitany", Form::any, true, n, reqs, &flag, index};
  c.status = status;
  return run(c);
}

CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  Call c{"Testany", Form::any, false, n, reqs, flag, index};
  c.status = status;
  return run(c);
}

CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  Call c{"Waitsome", Form::some, true, n, reqs, nullptr, nullptr, outcount, indices};
  c.statuses = statuses;
  return run(c);
}

CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  Call c{"Testsome", Form::some, false, n, reqs, nullptr, nullptr, outcount, indices};
  c.statuses = statuses;
  return run(c);
}

}  // namespace completion

bool truncation(int rc) {
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(rc, &cls);
  return cls == MPI_ERR_TRUNCATE;
}

}  // namespace adacomp
