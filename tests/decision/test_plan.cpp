// The decision (decision/plan.h) from tables of cases, without MPI: given a
// call, a communicator's layout, the settings, the link and the model's
// state, what happens. Each row names what it sets; what it does not set is
// the default: 8 MB of doubles, an Allreduce on 2 nodes x 2 ranks prepared
// by a blocking collective, default settings but the model off (a forced
// mode sets it), a 64K eager limit.
#include <cstring>
#include <functional>
#include <string>

#include "decision/plan.h"
#include "unit.h"

using namespace adacomp;

namespace {

constexpr size_t K = 1024, M = 1024 * 1024;

struct Expect {
  bool coded;
  PassReason reason = PassReason::below_threshold;  // of a pass
  bool counted = true;                              // of a pass
  Tier tier = Tier::lossless;
  Layout layout = Layout::flat;
  bool pipelined = false;
  int chunks = 1, segments = 1;
  const char* codec = nullptr;  // nullptr: not checked
  bool incomplete = false;      // plan() asks for the communicator's part
};

Expect pass(PassReason why, bool counted = true) {
  Expect e{false};
  e.reason = why;
  e.counted = counted;
  return e;
}
Expect coded(Tier tier, Layout layout = Layout::flat, bool pipelined = false, int chunks = 1,
             int segments = 1, const char* codec = nullptr) {
  return Expect{true, PassReason::below_threshold, true, tier, layout, pipelined, chunks,
                segments, codec};
}

Expect incomplete() {
  Expect e{false};
  e.incomplete = true;
  return e;
}

struct Case {
  const char* name;
  std::function<void(Config&, CallQuery&)> set;
  Expect expect;
};

// 2 nodes of 2 ranks, prepared: rails.
CommLayout two_by_two() {
  CommLayout l;
  l.prepared = l.node_groups = true;
  l.size = 4;
  l.nodes = 2;
  l.max_local = l.node_size = 2;
  return l;
}

CallQuery collective(size_t bytes, OpKind op = OpKind::allreduce) {
  CallQuery q;
  q.op = op;
  q.facts.active = true;
  q.facts.bytes = q.bytes = bytes;
  q.facts.kind = ElemKind::f64;
  q.facts.scope = op == OpKind::allreduce || op == OpKind::bcast || op == OpKind::reduce ||
                          ring_call(op)
                      ? GateScope::collective
                      : GateScope::transfer;
  q.facts.job_spans_nodes = true;
  q.comm = two_by_two();
  return q;
}

CallQuery message(size_t bytes) {
  CallQuery q = collective(bytes, OpKind::send);
  q.facts.scope = GateScope::transfer;
  q.facts.who = Decider::sender;
  q.link = LinkModel{125e6, 50e-6};  // 1 Gbit/s
  return q;
}

void forced(Config& c, Mode m) {
  c.mode = m;
  c.model = false;
}

// Lossy under the job's bound (collectives) or a communicator's (scoped).
void job_bound(Config& c, CallQuery& q, double rel) {
  c.rel_error_bound = rel;
  q.facts.bound = ErrorBound{0, rel, false};
}
void hinted(CallQuery& q, double rel) { q.facts.bound = ErrorBound{0, rel, true}; }

// Settles the slot of the query's size on arm `winner` (0: plain MPI).
void settle(RuntimeModel& model, const Config& c, CallQuery q, int winner) {
  q.model = &model;
  for (int n = 0; n < 1000; ++n) {
    const int slot = model.slot(static_cast<int>(q.op), q.bytes);
    PathChoice& s = model.at(slot);
    if (n > 0 && !s.exploring()) return;
    const Plan p = plan(c, q);
    const int arm = p.coded ? p.arm : 0;
    if (s.record(arm == winner ? 1.0 : 3.0)) s.agree(s.best());
  }
}

RuntimeModel g_model;
CodingEstimate g_estimate;

const Case kCases[] = {
    // --- verdict: facts alone
    {"inactive call", [](Config&, CallQuery& q) { q.facts.active = false; },
     pass(PassReason::below_threshold, false)},
    {"below T1", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.facts.bytes = q.bytes = 32 * K; },
     pass(PassReason::below_threshold)},
    {"raw mode", [](Config& c, CallQuery&) { c.mode = Mode::raw; }, pass(PassReason::switched_off)},
    {"override raw", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.facts.override = Override::raw; },
     pass(PassReason::switched_off)},
    {"bytes at 0", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.facts.bytes = q.bytes = 0; },
     pass(PassReason::below_threshold)},
    {"nonblocking, ADACOMP_NONBLOCKING off",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.form = CallForm::nonblocking; },
     pass(PassReason::nonblocking_off)},
    {"nonblocking off, even below T1",
     [](Config&, CallQuery& q) { q.form = CallForm::nonblocking, q.facts.bytes = q.bytes = 8; },
     pass(PassReason::nonblocking_off)},
    // --- forced modes: tiers, layouts, chunks and segments
    {"lossless, whole, flat (2 x 1)",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), q.comm.size = 2, q.comm.max_local = q.comm.node_size = 1;
     },
     coded(Tier::lossless, Layout::flat)},
    {"lossless, rails (2 x 2)", [](Config& c, CallQuery&) { forced(c, Mode::lossless); },
     coded(Tier::lossless, Layout::rails)},
    {"leaders on an uneven layout (1 + 2)",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.comm.size = 3, q.comm.uniform = false; },
     coded(Tier::lossless, Layout::leaders)},
    {"leaders forced", [](Config& c, CallQuery&) { forced(c, Mode::lossless), c.hierarchy = Hierarchy::leaders; },
     coded(Tier::lossless, Layout::leaders)},
    {"flat forced", [](Config& c, CallQuery&) { forced(c, Mode::lossless), c.hierarchy = Hierarchy::flat; },
     coded(Tier::lossless, Layout::flat)},
    {"one node: flat", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.comm.nodes = 1; },
     coded(Tier::lossless, Layout::flat)},
    {"lossy mode without a bound stays lossless", [](Config& c, CallQuery&) { forced(c, Mode::lossy); },
     coded(Tier::lossless, Layout::rails)},
    {"lossy under the job's bound", [](Config& c, CallQuery& q) { forced(c, Mode::lossy), job_bound(c, q, 1e-4); },
     coded(Tier::lossy, Layout::rails)},
    {"bytes never lossy",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossy), job_bound(c, q, 1e-4), q.facts.kind = ElemKind::bytes; },
     coded(Tier::lossless, Layout::rails)},
    // flat ring of 2: a 4 MB unit in chunks whose frames go eagerly at 64K
    {"pipelined flat ring: chunks from the eager limit",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::adaptive_pipelined), q.comm.size = 2, q.comm.max_local = q.comm.node_size = 1;
     },
     coded(Tier::lossless, Layout::flat, true, 65)},
    {"pipelined rails ring: 4 segments of its chunks",
     [](Config& c, CallQuery&) { forced(c, Mode::adaptive_pipelined); },
     coded(Tier::lossless, Layout::rails, true, 9, 4)},
    {"pipelined rails ring, 1 MB: 2 segments",
     [](Config& c, CallQuery& q) { forced(c, Mode::adaptive_pipelined), q.facts.bytes = q.bytes = 1 * M; },
     coded(Tier::lossless, Layout::rails, true, 3, 2)},
    {"pipelined below T3 is whole",
     [](Config& c, CallQuery& q) { forced(c, Mode::adaptive_pipelined), q.facts.bytes = q.bytes = 128 * K; },
     coded(Tier::lossless, Layout::rails)},
    {"pipelined Bcast across nodes: segments at most its chunks",
     [](Config& c, CallQuery& q) { forced(c, Mode::adaptive_pipelined), q.op = OpKind::bcast; },
     coded(Tier::lossless, Layout::rails, true, 129, 4)},
    {"pipelined Reduce on rails: the slice moves, chunks per segment",
     [](Config& c, CallQuery& q) { forced(c, Mode::adaptive_pipelined), q.op = OpKind::reduce; },
     coded(Tier::lossless, Layout::rails, true, 17, 4)},
    {"pipelined Reduce, leaders",
     [](Config& c, CallQuery& q) { forced(c, Mode::adaptive_pipelined), q.op = OpKind::reduce, q.comm.uniform = false; },
     coded(Tier::lossless, Layout::leaders, true, 129, 4)},
    {"pipelined lossy chunks are larger",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::adaptive_pipelined), job_bound(c, q, 1e-4), q.comm.size = 2;
       q.comm.max_local = q.comm.node_size = 1;
     },
     coded(Tier::lossy, Layout::flat, true, 9)},
    {"a larger eager limit makes fewer chunks",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::adaptive_pipelined), q.eager_limit = 256 * K, q.comm.size = 2;
       q.comm.max_local = q.comm.node_size = 1;
     },
     coded(Tier::lossless, Layout::flat, true, 17)},
    // --- nonblocking and persistent forms
    {"nonblocking, forced, prepared",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::nonblocking; },
     coded(Tier::lossless, Layout::rails)},
    {"nonblocking under the adaptive policy",
     [](Config& c, CallQuery& q) { c.nonblocking = true, q.form = CallForm::nonblocking; },
     pass(PassReason::nonblocking_off)},
    {"nonblocking on a communicator not prepared",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::nonblocking;
       q.comm.prepared = false;
     },
     pass(PassReason::unprepared)},
    {"nonblocking before the node groups exist",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::nonblocking;
       q.comm.node_groups = false;
     },
     pass(PassReason::unprepared)},
    {"nonblocking exchange needs no node groups",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::nonblocking;
       q.op = OpKind::alltoall, q.facts.scope = GateScope::transfer, q.comm.node_groups = false;
     },
     coded(Tier::lossless, Layout::rails)},
    {"persistent across nodes",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::persistent; },
     pass(PassReason::persistent_across_nodes)},
    {"persistent on one node",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), c.nonblocking = true, q.form = CallForm::persistent, q.comm.nodes = 1;
     },
     coded(Tier::lossless, Layout::flat)},
    {"blocking on a communicator the library could not prepare",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.comm.prepared = false; },
     pass(PassReason::below_threshold, false)},
    {"intercommunicator", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.comm.intercomm = true; },
     pass(PassReason::below_threshold, false)},
    // --- data movement: lossy only where scoped
    {"Alltoall under a job-wide bound stays lossless",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossy), job_bound(c, q, 1e-4);
       q.op = OpKind::alltoall, q.facts.scope = GateScope::transfer;
     },
     coded(Tier::lossless, Layout::rails)},
    {"Alltoall on a hinted communicator is lossy",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), c.mode = Mode::adaptive, c.model = false, hinted(q, 1e-4);
       q.op = OpKind::alltoall, q.facts.scope = GateScope::transfer;
     },
     coded(Tier::lossy, Layout::rails)},
    {"a hint under ADACOMP_MODE=lossless stays lossless",
     [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), hinted(q, 1e-4), q.op = OpKind::alltoall;
       q.facts.scope = GateScope::transfer;
     },
     coded(Tier::lossless, Layout::rails)},
    {"exchange below T1", [](Config& c, CallQuery& q) {
       forced(c, Mode::lossless), q.op = OpKind::allgather, q.facts.scope = GateScope::transfer;
       q.facts.bytes = q.bytes = 4 * K;
     },
     pass(PassReason::below_threshold)},
    // --- the adaptive policy and the model's state
    {"adaptive on one node, uncalibrated: uncounted",
     [](Config&, CallQuery& q) { q.comm.nodes = 1, q.model = &g_model; },
     pass(PassReason::below_threshold, false)},
    {"adaptive, a fresh slot explores plain MPI first",
     [](Config&, CallQuery& q) {
       static RuntimeModel fresh;
       q.model = &fresh;
     },
     pass(PassReason::model_no_gain)},
    {"adaptive, settled on plain MPI",
     [](Config& c, CallQuery& q) {
       static RuntimeModel m;
       settle(m, c, q, 0);
       q.model = &m;
     },
     pass(PassReason::model_no_gain)},
    {"adaptive, settled on the first codec, whole",
     [](Config& c, CallQuery& q) {
       static RuntimeModel m;
       settle(m, c, q, 1);
       q.model = &m;
     },
     coded(Tier::lossless, Layout::rails, false, 1, 1)},
    // --- the order of the steps: facts, a settled slot, arguments, the communicator
    {"arguments a reduction cannot code: uncounted",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.args_ok = false; },
     pass(PassReason::below_threshold, false)},
    {"bad arguments below T1: the facts' pass comes first",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.args_ok = false, q.facts.bytes = q.bytes = 8; },
     pass(PassReason::below_threshold)},
    {"blocking, the communicator's part not gathered: incomplete",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.complete = false; },
     incomplete()},
    {"not gathered, but settled on plain MPI: passes at once",
     [](Config& c, CallQuery& q) {
       static RuntimeModel m;
       settle(m, c, q, 0);
       q.model = &m, q.complete = false;
     },
     pass(PassReason::model_no_gain)},
    {"not gathered, bad arguments: uncounted, nothing gathered",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.complete = false, q.args_ok = false; },
     pass(PassReason::below_threshold, false)},
    // --- point-to-point senders
    {"message under 1 KB", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.facts.bytes = q.bytes = 512; },
     pass(PassReason::below_threshold)},
    {"message with coding switched off by MPI_Pcontrol(0)",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.facts.coding_on = false; },
     pass(PassReason::switched_off)},
    {"message to a peer on this node", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.peer_same_node = true; },
     pass(PassReason::same_node)},
    {"message to a same-node peer, one node",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.peer_same_node = true, q.comm.nodes = 1; },
     coded(Tier::lossless)},
    {"message to a rank that does not exist", [](Config& c, CallQuery& q) { forced(c, Mode::lossless), q.peer_valid = false; },
     pass(PassReason::below_threshold, false)},
    {"message, forced lossless", [](Config& c, CallQuery&) { forced(c, Mode::lossless); }, coded(Tier::lossless)},
    {"message under a job-wide bound stays lossless",
     [](Config& c, CallQuery& q) { forced(c, Mode::lossy), job_bound(c, q, 1e-4); }, coded(Tier::lossless)},
    {"message on a hinted communicator is lossy",
     [](Config& c, CallQuery& q) { c.mode = Mode::adaptive, c.model = false, hinted(q, 1e-4); },
     coded(Tier::lossy)},
    {"adaptive message under threshold_p2p",
     [](Config&, CallQuery& q) { q.facts.bytes = q.bytes = 16 * K, q.estimate = &g_estimate; },
     pass(PassReason::below_threshold)},
    {"adaptive message, nothing measured yet: a trial",
     [](Config&, CallQuery& q) { q.estimate = &g_estimate; }, coded(Tier::lossless)},
};

bool check(const Case& k) {
  Config c;
  c.model = true;
  const bool sender =
      std::strncmp(k.name, "message", 7) == 0 || std::strncmp(k.name, "adaptive message", 16) == 0;
  CallQuery q = sender ? message(8 * M) : collective(8 * M);
  k.set(c, q);
  if (!q.model) q.model = &g_model;
  const Plan p = plan(c, q);
  const Expect& e = k.expect;
  bool ok = p.coded == e.coded && p.incomplete == e.incomplete;
  if (ok && !e.coded && !e.incomplete) ok = p.counted == e.counted && (!e.counted || p.reason == e.reason);
  if (ok && e.coded)
    ok = p.tier.tier == e.tier && p.layout == e.layout && p.tier.pipelined == e.pipelined &&
         p.chunks == e.chunks && p.segments == e.segments && p.codec &&
         (!e.codec || std::string(p.codec->name) == e.codec);
  if (!ok)
    std::fprintf(stderr,
                 "case \"%s\": got %s%s %s (counted %d) tier %d layout %s pipelined %d chunks %d "
                 "segments %d\n",
                 k.name, p.coded ? "coded" : "passed", p.incomplete ? " (incomplete)" : "", pass_key(p.reason), p.counted,
                 static_cast<int>(p.tier.tier), layout_name(p.layout), p.tier.pipelined,
                 p.chunks, p.segments);
  return ok;
}

}  // namespace

int main() {
  int n = 0;
  for (const Case& k : kCases) {
    EXPECT(check(k));
    ++n;
  }
  std::printf("%d cases\n", n);
  EXPECT(n >= 40);
  return unit::finish("decision plan");
}
