// The decision "is this call coded, and how?", in one place and MPI-free:
// what is known about a call (CallQuery) in, one Plan out. Collectives,
// nonblocking collectives and point-to-point senders all ask plan(); what
// they do first is gather the query (runtime/call_facts.h, coll/plan.cpp,
// p2p/send.cpp), and what they do after is follow the plan. The report
// counts a plan's reason for every call passed through, and ADACOMP_VERBOSE=2
// prints it (report/stats.h).
//
// The words of the decision, each used for one thing (docs/design.md):
//  facts      what is known of a call before deciding: bytes, element kind,
//             scope, who decides, the override, the bound, MPI_Pcontrol
//             (CallFacts, decision/gate.h)
//  verdict    the first step, on facts alone: the tier, or a pass and its
//             reason (verdict(), decision/gate.h)
//  tier       how a message is sent: raw, lossless or lossy, pipelined or
//             whole (decision/tier.h)
//  threshold  the size a tier starts from (ADACOMP_THRESHOLD_*)
//  size class a message size's power of two (decision/size_class.h)
//  candidates the codecs a tier may use for an element kind
//  arm        one path the runtime model can time: plain MPI (arm 0) or a
//             candidate, whole or in chunks
//  slot       the runtime model's state for one communicator, operation
//             and size class (PathChoice, decision/model.h)
//  estimate   a point-to-point sender's measured ratio and codec speed per
//             candidate (CodingEstimate, decision/model.h)
//  layout     how a collective uses the nodes: flat, rails or leaders
//  chunk      a piece of a pipelined unit, coded while the one before
//             travels; segment: a piece of a node-aware call that flows
//             through its node stage and its ring while others do the same
//  bound      the error a lossy call may make (ErrorBound: the job's, a
//             communicator's hint, or a rule's)
//  pass       a call handed to MPI unchanged, with its PassReason
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "decision/config.h"
#include "decision/gate.h"
#include "decision/model.h"
#include "decision/operation.h"
#include "decision/tier.h"

namespace adacomp {

// How a compressed collective uses the node layout (Hierarchy, config.h).
enum class Layout { flat, rails, leaders };
const char* layout_name(Layout l);

// A communicator as every rank of it knows it, and the library's state of
// it (runtime/comm_state.h fills it in).
struct CommLayout {
  bool intercomm = false;
  bool prepared = false;     // the library's private copy of it exists
  bool node_groups = false;  // its node communicators exist
  int size = 1;              // ranks
  int nodes = 1;             // nodes its ranks are on
  int max_local = 1;         // most ranks on one node
  int node_size = 1;         // ranks on this rank's node
  bool uniform = true;       // every node holds as many ranks
  bool spans_nodes() const { return nodes > 1; }
};

// Everything plan() reads about one call.
struct CallQuery {
  OpKind op = OpKind::allreduce;
  CallForm form = CallForm::blocking;
  CallFacts facts;
  // The message the call moves as a whole (facts.bytes is the size the
  // verdict gates: for the v exchanges, the smallest coded one).
  size_t bytes = 0;
  // Collectives:
  CommLayout comm;
  size_t eager_limit = 64 << 10;  // the largest message MPI sends eagerly
  bool padded_arms = false;       // the ranks' datatypes may differ (Bcast)
  RuntimeModel* model = nullptr;  // the communicator's; its slots advance
  // The arguments are valid and the call can be coded (runtime/args.h);
  // else a call not passed on its facts passes uncounted, and PMPI reports
  // an error with MPI's own class.
  bool args_ok = true;
  // The communicator's part (its state, layout, model and agreed bound) is
  // in the query. A blocking collective makes the state collectively, so
  // the first time it asks without it; plan() then says `incomplete`
  // unless the call passes on what is already known.
  bool complete = true;
  // Point-to-point senders:
  bool peer_valid = true;       // else MPI reports the bad rank
  bool peer_same_node = false;  // the destination shares this rank's node
  LinkModel link;               // to the destination
  CodingEstimate* estimate = nullptr;  // this rank's; the caller serialises
};

// What a call does: passed through (coded false, with its reason when the
// report counts it), or coded along this path.
struct Plan {
  bool coded = false;
  bool counted = false;  // a pass the report counts, as `reason`
  PassReason reason = PassReason::below_threshold;
  size_t bytes = 0;
  ElemKind kind = ElemKind::bytes;  // what the codec codes
  TierChoice tier;
  bool adaptive = false;  // the runtime model chose the arm
  ErrorBound bound;
  Layout layout = Layout::flat;
  // The candidate (Candidates::arm, 1..) and its codec for the call's kind.
  int arm = 1;
  const Codec* codec = nullptr;
  int chunks = 1;    // pipeline chunks of the unit that moves (1: whole)
  int segments = 1;  // node-aware staged calls: segments in flight
  int model = -1;    // the runtime model's slot timing this call (-1: none)
  int estimate_kind = 0;  // a sender's CodingEstimate kind for this message
  // Not a decision yet: the call does not pass on its facts, its model slot
  // or its arguments, and plan() needs the communicator's part of the
  // query (CallQuery::complete) to go on.
  bool incomplete = false;
};

// The one decision. Collectives (facts.who == all_ranks) read only what
// every rank of the communicator knows alike, so every rank plans alike;
// a point-to-point sender decides alone (its frame tells the receiver).
// In order: the facts (passes_on_facts); a blocking call whose model slot
// settled on plain MPI (untimed); the arguments; then, with the query
// complete, the layout, the model's arm, the codec and the cutting.
// Advances the model's slot or asks the estimate when the adaptive policy
// decides, and only then.
Plan plan(const Config& c, const CallQuery& q);

// The first step of plan(), on the call's facts alone (not active, a
// nonblocking form while ADACOMP_NONBLOCKING is off, the verdict): true
// with the pass when one passes it. A point-to-point sender asks it before
// it gathers its peer and link. When none passes, `pass` holds the
// verdict's tier and whether the model decides.
bool passes_on_facts(const Config& c, const CallQuery& q, Plan* pass);

// The layout a communicator gives under a hierarchy setting.
Layout layout_of(const CommLayout& comm, Hierarchy h);
// How many segments a share of `share` bytes of a pipelined node-aware call
// makes (1: whole).
int node_segments(size_t share);
// A sender's CodingEstimate kind: its element kind, lossy ones apart (a
// lossy codec's ratio says nothing of the lossless ones').
int estimate_kind(ElemKind kind, Tier tier);

// The reason's report key ("below_threshold", ...) and its words.
const char* pass_key(PassReason why);
const char* pass_words(PassReason why);

}  // namespace adacomp
