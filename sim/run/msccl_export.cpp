// Writing a schedule as an MSCCL algorithm file (msccl_export.h). Four stages: refuse what
// MSCCL cannot say; decide which receives fuse with the send that forwards their chunk;
// turn transfers into steps of thread blocks, with depid/deps where collsim's derived
// dependencies cross thread blocks; write the XML with pugixml.
#include "sim/run/msccl_export.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "sim/check/dependencies.h"
#include "sim/core/errors.h"
#include "sim/run/msccl_format.h"
#include "sim/run/run.h"

namespace collsim {
namespace {

using msccl::StepType;

void refuse_what_msccl_cannot_say(const Schedule& s) {
  if (!msccl::find_coll(s.spec.collective))
    throw InputError(fmt::format("MSCCL has no `coll` for {} (it has {}): nothing to export", to_string(s.spec.collective),
                                 msccl::coll_names()));
  if (s.total_ranks != s.spec.ranks)
    throw InputError(fmt::format(
        "{} runs on {} ranks for {} GPUs (its servers are ranks of their own): an MSCCL algorithm runs on exactly "
        "the communicator's GPUs (try --colocated)",
        s.algorithm, s.total_ranks, s.spec.ranks));
  for (const LocalOp& op : s.pre_ops)
    if (op.kind != LocalOpKind::copy)
      throw InputError(fmt::format("{} starts by a {} of rank {}'s {}, and MSCCL has no such step (only copies and "
                                   "reductions of chunks)",
                                   s.algorithm, to_string(op.kind), op.target.rank, to_string(op.target.buffer)));
  if (!s.post_ops.empty())
    throw InputError(fmt::format("{} ends by a {} (op {}), and MSCCL has no such step: export with --op sum", s.algorithm,
                                 to_string(s.post_ops.front().kind), to_string(s.spec.op)));
  if (s.spec.count == 0) throw InputError("--count 0: there are no chunks to export");
}

// The chunk: the largest element count that divides the block and every region.
std::uint64_t chunk_elements(const Schedule& s) {
  std::uint64_t g = s.spec.count;
  const auto take = [&](const Region& r) { g = std::gcd(g, std::gcd(r.offset, r.count)); };
  for (const LocalOp& op : s.pre_ops) take(op.target), take(op.source);
  for (const Transfer& t : s.transfers) take(t.source()), take(t.destination());
  for (int r = 0; r < s.total_ranks; ++r) g = std::gcd(g, s.scratch_count[static_cast<std::size_t>(r)]);
  return g;
}

bool overlap(const Region& a, const Region& b) {
  return a.rank == b.rank && a.buffer == b.buffer && a.offset < b.end() && b.offset < a.end();
}
bool covers(const Region& outer, const Region& inner) {
  return outer.rank == inner.rank && outer.buffer == inner.buffer && outer.offset <= inner.offset && inner.end() <= outer.end();
}

// --- fusion ------------------------------------------------------------------------------------

struct Fusion {
  std::vector<int> out;  // per transfer: the transfer that forwards what it received (-1: none)
  std::vector<bool> is_out, keep_sum;  // forwarded by a fused receive; the fused receive stores the sum (rrcs)
};

// The first transfer after `t` that reads its destination unchanged and sends it on, if
// nothing writes there in between. `read_between`: someone else reads it before.
int forwarding_transfer(const Schedule& s, std::size_t t, bool& read_between) {
  const Region r = storage_of(s, s.transfers[t].destination());
  read_between = false;
  for (std::size_t j = t + 1; j < s.transfers.size(); ++j) {
    const Transfer& x = s.transfers[j];
    const Region src = storage_of(s, x.source()), dst = storage_of(s, x.destination());
    if (overlap(dst, r)) return -1;
    if (x.has_operand() && overlap(storage_of(s, x.operand()), r)) read_between = true;
    if (!overlap(src, r)) continue;
    if (!x.is_local() && src == r) return static_cast<int>(j);
    read_between = true;
  }
  return -1;
}

// Whether the sum a fused reduce leaves at its destination is read again after `out` (or is
// output that must survive): rrcs then, else rrs.
bool sum_needed_after(const Schedule& s, const Region& r, std::size_t out) {
  for (std::size_t j = out + 1; j < s.transfers.size(); ++j) {
    const Transfer& x = s.transfers[j];
    if (overlap(storage_of(s, x.source()), r)) return true;
    if (x.has_operand() && overlap(storage_of(s, x.operand()), r)) return true;
    const Region dst = storage_of(s, x.destination());
    if (overlap(dst, r)) return x.action == Action::reduce || !covers(dst, r);
  }
  return r.buffer != BufferKind::scratch;
}

// Where a GPU's thread block runs a step: by collsim step; within one, sends before the
// rest (the transfers of a step are independent, so any order is right, and this one lets
// a fused receive-and-send follow the step's plain send); then in the schedule's order.
using OpKey = std::tuple<int, int, std::size_t>;

// The key of the op that sends transfer x: its own send, or the fused receive that forwards it.
OpKey send_key(const Schedule& s, const std::vector<int>& fused_from, std::size_t x) {
  const int in = fused_from[x];
  if (in < 0) return {s.transfers[x].step, 0, x};
  return {s.transfers[static_cast<std::size_t>(in)].step, 1, static_cast<std::size_t>(in)};
}

// MSCCL matches sends with receives in order per connection: the sends from `gpu` to `peer`
// on `channel` must come in their receives' order (the schedule's).
bool stream_in_order(const Schedule& s, const std::vector<int>& fused_from, int gpu, int peer, int channel) {
  std::optional<OpKey> last;
  for (std::size_t x = 0; x < s.transfers.size(); ++x) {
    const Transfer& t = s.transfers[x];
    if (t.src != gpu || t.dst != peer || t.channel != channel) continue;
    const OpKey k = send_key(s, fused_from, x);
    if (last && k < *last) return false;
    last = k;
  }
  return true;
}

Fusion decide_fusions(const Schedule& s) {
  const std::size_t n = s.transfers.size();
  Fusion f{std::vector<int>(n, -1), std::vector<bool>(n, false), std::vector<bool>(n, false)};
  std::vector<int> fused_from(n, -1);
  // A thread block has one receive peer, one send peer and one channel: per GPU and channel,
  // a receive peer pairs with one send peer at most, and the other way round; the chunk
  // goes on on the channel it came by.
  std::map<std::tuple<int, int, int>, int> recv_pair, send_pair;  // (gpu, peer, channel) -> peer
  for (std::size_t t = 0; t < n; ++t) {
    const Transfer& in = s.transfers[t];
    if (in.is_local()) continue;
    bool read_between = false;
    const int o = forwarding_transfer(s, t, read_between);
    if (o < 0 || f.is_out[static_cast<std::size_t>(o)]) continue;
    const int gpu = in.dst, from = in.src, to = s.transfers[static_cast<std::size_t>(o)].dst, chan = in.channel;
    if (s.transfers[static_cast<std::size_t>(o)].channel != chan) continue;
    const auto r = recv_pair.find({gpu, from, chan});
    const auto q = send_pair.find({gpu, to, chan});
    if ((r != recv_pair.end() && r->second != to) || (q != send_pair.end() && q->second != from)) continue;
    fused_from[static_cast<std::size_t>(o)] = static_cast<int>(t);
    if (!stream_in_order(s, fused_from, gpu, to, chan)) {
      fused_from[static_cast<std::size_t>(o)] = -1;
      continue;
    }
    recv_pair[{gpu, from, chan}] = to;
    send_pair[{gpu, to, chan}] = from;
    f.out[t] = o;
    f.is_out[static_cast<std::size_t>(o)] = true;
    f.keep_sum[t] = in.action == Action::copy || read_between ||
                    sum_needed_after(s, storage_of(s, in.destination()), static_cast<std::size_t>(o));
  }
  return f;
}

// --- steps and thread blocks --------------------------------------------------------------------

struct Op {
  StepType type = StepType::nop;
  int gpu = 0, recv_peer = -1, send_peer = -1;
  int chan = 0;     // the channel of its connections (local steps: 0)
  Region src, dst;  // as MSCCL writes them: for a send, dst is the receiver's; for a receive, src the sender's
  std::vector<int> needs;  // ops it must come after
  OpKey key{};  // the order the GPU runs its ops in
  int tb = -1, index = -1;
  int writes = -1;  // the transfer whose destination it writes (collsim_order)
  bool hasdep = false;
  int depid = -1, deps = -1;
};

struct Plan {
  std::vector<Op> ops;                   // in the order their GPUs run them
  std::vector<int> read_op, write_op;    // per transfer: the op that reads its source, writes its destination
  std::vector<int> pre_op;               // per pre-operation
  std::vector<int> order;                // op ids by key
};

Plan make_ops(const Schedule& s, const Fusion& f) {
  Plan p;
  const std::size_t n = s.transfers.size();
  p.read_op.assign(n, -1);
  p.write_op.assign(n, -1);
  OpKey key;
  int chan = 0;
  const auto add = [&](StepType type, int gpu, int recv_peer, int send_peer, const Region& src, const Region& dst) {
    Op op;
    op.type = type, op.gpu = gpu, op.recv_peer = recv_peer, op.send_peer = send_peer, op.src = src, op.dst = dst;
    op.chan = recv_peer >= 0 || send_peer >= 0 ? chan : 0;
    op.key = key;
    p.ops.push_back(op);
    return static_cast<int>(p.ops.size() - 1);
  };
  for (std::size_t k = 0; k < s.pre_ops.size(); ++k) {
    const LocalOp& op = s.pre_ops[k];
    key = {-1, 0, k};
    p.pre_op.push_back(add(StepType::cpy, op.target.rank, -1, -1, op.source, op.target));
  }
  for (std::size_t t = 0; t < n; ++t) {
    const Transfer& x = s.transfers[t];
    key = {x.step, 1, t};
    chan = x.channel;
    if (x.is_local()) {
      if (x.has_operand())
        throw InputError(fmt::format("{}: transfer #{} is a local reduce_copy (two local operands), and MSCCL has no "
                                     "such step (re reduces into its destination)",
                                     s.algorithm, t));
      p.read_op[t] = p.write_op[t] =
          add(x.action == Action::reduce ? StepType::re : StepType::cpy, x.src, -1, -1, x.source(), x.destination());
      p.ops[static_cast<std::size_t>(p.write_op[t])].writes = static_cast<int>(t);
      continue;
    }
    if (!f.is_out[t]) {
      key = {x.step, 0, t};
      p.read_op[t] = add(StepType::s, x.src, -1, x.dst, x.source(), x.destination());
      key = {x.step, 1, t};
    }
    const int o = f.out[t];
    const bool reduce = reduces(x.action);
    StepType type = reduce ? StepType::rrc : StepType::r;
    if (o >= 0) type = !reduce ? StepType::rcs : f.keep_sum[t] ? StepType::rrcs : StepType::rrs;
    // A reduce's local operand is MSCCL's srcbuf: the destination itself, or a reduce_copy's operand.
    p.write_op[t] = add(type, x.dst, x.src, o >= 0 ? s.transfers[static_cast<std::size_t>(o)].dst : -1,
                        x.has_operand() ? x.operand() : reduce ? x.destination() : x.source(), x.destination());
    p.ops[static_cast<std::size_t>(p.write_op[t])].writes = static_cast<int>(t);
    if (o >= 0) p.read_op[static_cast<std::size_t>(o)] = p.write_op[t];
  }
  p.order.resize(p.ops.size());
  std::iota(p.order.begin(), p.order.end(), 0);
  std::sort(p.order.begin(), p.order.end(), [&](int a, int b) { return p.ops[static_cast<std::size_t>(a)].key < p.ops[static_cast<std::size_t>(b)].key; });
  return p;
}

// What each op must wait for on its own GPU: collsim's derived dependencies, each at the
// GPU where the two transfers touch the same storage; and the pre-operations there.
void add_needs(const Schedule& s, Plan& p) {
  const auto need = [&](int op, int on) {
    if (op >= 0 && on >= 0 && op != on) p.ops[static_cast<std::size_t>(op)].needs.push_back(on);
  };
  // A reduce_copy reads its operand in its receive (write_op), its source in the send.
  (void)derive_dependencies(s, [&](std::uint32_t e, std::uint32_t l, Hazard h) {
    const Transfer &te = s.transfers[e], &tl = s.transfers[l];
    if (h == Hazard::read_after_write) {
      const ReadsTouched r = reads_touching(s, tl, storage_of(s, te.destination()));
      if (r.source) need(p.read_op[l], p.write_op[e]);
      if (r.operand) need(p.write_op[l], p.write_op[e]);
    } else if (h == Hazard::write_after_read) {
      const ReadsTouched r = reads_touching(s, te, storage_of(s, tl.destination()));
      if (r.source) need(p.write_op[l], p.read_op[e]);
      if (r.operand) need(p.write_op[l], p.write_op[e]);
    } else {
      need(p.write_op[l], p.write_op[e]);
    }
  });
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Region src = storage_of(s, s.transfers[t].source()), dst = storage_of(s, s.transfers[t].destination());
    for (std::size_t k = 0; k < s.pre_ops.size(); ++k) {
      const Region target = storage_of(s, s.pre_ops[k].target), source = storage_of(s, s.pre_ops[k].source);
      if (overlap(src, target)) need(p.read_op[t], p.pre_op[k]);
      if (overlap(dst, target) || overlap(dst, source)) need(p.write_op[t], p.pre_op[k]);
    }
  }
}

struct Tb {
  int send = -1, recv = -1, chan = 0;
  std::vector<int> steps;  // op ids; -1 - k: a nop carrying a dependency on op k
};

// Numbers each GPU's thread blocks by their first send in the schedule's order (those that
// never send last): a reader that takes ready steps in thread-block order (as collsim's
// importer does) then sends in the schedule's order, and the timing model, which serves a
// busy link in that order, predicts the same time for the file as for the schedule.
void number_by_first_send(Plan& p, std::vector<std::vector<Tb>>& tbs) {
  for (std::size_t g = 0; g < tbs.size(); ++g) {
    std::vector<std::pair<OpKey, int>> first(tbs[g].size(), {{std::numeric_limits<int>::max(), 0, 0}, 0});
    for (std::size_t t = 0; t < first.size(); ++t) first[t].second = static_cast<int>(t);
    for (int i : p.order) {
      const Op& op = p.ops[static_cast<std::size_t>(i)];
      if (op.gpu == static_cast<int>(g) && op.send_peer >= 0)
        first[static_cast<std::size_t>(op.tb)].first = std::min(first[static_cast<std::size_t>(op.tb)].first, op.key);
    }
    std::stable_sort(first.begin(), first.end());
    std::vector<int> id(first.size());
    std::vector<Tb> sorted;
    for (std::size_t k = 0; k < first.size(); ++k) {
      id[static_cast<std::size_t>(first[k].second)] = static_cast<int>(k);
      sorted.push_back(tbs[g][static_cast<std::size_t>(first[k].second)]);
    }
    tbs[g] = std::move(sorted);
    for (Op& op : p.ops)
      if (op.gpu == static_cast<int>(g)) op.tb = id[static_cast<std::size_t>(op.tb)];
  }
}

// Thread blocks per GPU and channel: one per (receive peer, send peer) pairing of the fused
// steps, then one per remaining peer (a receive and a send peer that are the same GPU share
// one), then one for the local steps (on channel 0).
std::vector<std::vector<Tb>> make_tbs(const Schedule& s, Plan& p) {
  std::vector<std::vector<Tb>> tbs(static_cast<std::size_t>(s.spec.ranks));
  using PeerChan = std::pair<int, int>;  // (peer, channel)
  std::vector<std::map<PeerChan, int>> by_recv(tbs.size()), by_send(tbs.size());
  const auto open = [&](int gpu, int recv, int send, int chan) {
    std::vector<Tb>& list = tbs[static_cast<std::size_t>(gpu)];
    list.push_back({send, recv, chan, {}});
    const int id = static_cast<int>(list.size() - 1);
    if (recv >= 0) by_recv[static_cast<std::size_t>(gpu)][{recv, chan}] = id;
    if (send >= 0) by_send[static_cast<std::size_t>(gpu)][{send, chan}] = id;
  };
  const auto in_order = [&] {
    std::vector<const Op*> ops;
    for (int i : p.order) ops.push_back(&p.ops[static_cast<std::size_t>(i)]);
    return ops;
  }();
  for (const Op* o : in_order)
    if (const Op& op = *o;
        op.recv_peer >= 0 && op.send_peer >= 0 && !by_recv[static_cast<std::size_t>(op.gpu)].count({op.recv_peer, op.chan}))
      open(op.gpu, op.recv_peer, op.send_peer, op.chan);
  for (const Op* o : in_order) {
    const Op& op = *o;
    const auto g = static_cast<std::size_t>(op.gpu);
    if (op.recv_peer >= 0 && !by_recv[g].count({op.recv_peer, op.chan})) {
      bool sends_there = false;
      for (const Op& x : p.ops) sends_there |= x.gpu == op.gpu && x.send_peer == op.recv_peer && x.chan == op.chan;
      open(op.gpu, op.recv_peer, sends_there && !by_send[g].count({op.recv_peer, op.chan}) ? op.recv_peer : -1, op.chan);
    }
  }
  for (const Op* o : in_order)
    if (const Op& op = *o; op.send_peer >= 0 && !by_send[static_cast<std::size_t>(op.gpu)].count({op.send_peer, op.chan}))
      open(op.gpu, -1, op.send_peer, op.chan);
  std::vector<int> local(tbs.size(), -1);
  for (int i : p.order) {
    Op& op = p.ops[static_cast<std::size_t>(i)];
    const auto g = static_cast<std::size_t>(op.gpu);
    if (op.recv_peer >= 0) op.tb = by_recv[g].at({op.recv_peer, op.chan});
    else if (op.send_peer >= 0) op.tb = by_send[g].at({op.send_peer, op.chan});
    else {
      if (local[g] < 0) open(op.gpu, -1, -1, 0), local[g] = static_cast<int>(tbs[g].size() - 1);
      op.tb = local[g];
    }
  }
  number_by_first_send(p, tbs);
  return tbs;
}

// Steps in order, with depid/deps where a step needs another thread block's (the latest
// such step of each; a nop before the step carries each one after the first).
int place_steps(Plan& p, std::vector<std::vector<Tb>>& tbs) {
  int dependencies = 0;
  // Per (GPU, thread block): the latest step of each other thread block it already waited
  // for; waiting again for that or an earlier one is implied by thread-block order.
  std::map<std::pair<int, int>, std::map<int, int>> waited;
  for (int i : p.order) {
    Op& op = p.ops[static_cast<std::size_t>(i)];
    Tb& tb = tbs[static_cast<std::size_t>(op.gpu)][static_cast<std::size_t>(op.tb)];
    std::map<int, int>& known = waited[{op.gpu, op.tb}];
    std::map<int, int> latest;  // thread block -> op
    for (int k : op.needs) {
      const Op& on = p.ops[static_cast<std::size_t>(k)];
      if (on.tb == op.tb) continue;
      if (const auto w = known.find(on.tb); w != known.end() && w->second >= on.index) continue;
      auto [it, fresh] = latest.try_emplace(on.tb, k);
      if (!fresh && p.ops[static_cast<std::size_t>(it->second)].index < on.index) it->second = k;
    }
    bool first = true;
    for (const auto& [other, k] : latest) {
      Op& on = p.ops[static_cast<std::size_t>(k)];
      on.hasdep = true;
      known[other] = on.index;
      ++dependencies;
      if (first) {
        op.depid = other, op.deps = on.index, first = false;
        continue;
      }
      tb.steps.push_back(-1 - k);  // a nop waiting for `on`
    }
    op.index = static_cast<int>(tb.steps.size());
    tb.steps.push_back(i);
  }
  return dependencies;
}

// --- XML ---------------------------------------------------------------------------------------

void set(pugi::xml_node n, const char* key, long long v) { n.append_attribute(key) = v; }
void set(pugi::xml_node n, const char* key, std::string_view v) { n.append_attribute(key) = std::string(v).c_str(); }

void write_step(pugi::xml_node tb, int index, std::string_view type, const Region* src, const Region* dst,
                std::uint64_t chunk, std::uint64_t cnt, int depid, int deps, bool hasdep, int order = -1,
                int step = -1) {
  pugi::xml_node x = tb.append_child("step");
  set(x, "s", index);
  set(x, "type", type);
  set(x, "srcbuf", msccl::buffer_letter(src ? src->buffer : BufferKind::input));
  set(x, "srcoff", src ? static_cast<long long>(src->offset / chunk) : -1);
  set(x, "dstbuf", msccl::buffer_letter(dst ? dst->buffer : BufferKind::output));
  set(x, "dstoff", dst ? static_cast<long long>(dst->offset / chunk) : -1);
  set(x, "cnt", static_cast<long long>(cnt));
  set(x, "depid", depid);
  set(x, "deps", deps);
  set(x, "hasdep", hasdep ? 1 : 0);
  // collsim's order and step of the transfer the step writes: MSCCL ignores them; collsim's
  // importer keeps them, so that a round trip has the schedule's order and teaching steps
  // (and so its predicted time: the timing model serves a busy link in that order).
  if (order >= 0) set(x, "collsim_order", order), set(x, "collsim_step", step + 1);
}

std::string to_text(const pugi::xml_document& doc) {
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration);
  return out.str();
}

}  // namespace

MscclExport export_msccl(const Schedule& s, const MscclExportOptions& o) {
  refuse_what_msccl_cannot_say(s);
  const msccl::CollName& coll = *msccl::find_coll(s.spec.collective);
  const std::uint64_t chunk = chunk_elements(s);
  const std::uint64_t per_block = s.spec.count / chunk;
  const Fusion fusion = decide_fusions(s);
  Plan plan = make_ops(s, fusion);
  add_needs(s, plan);
  std::vector<std::vector<Tb>> tbs = make_tbs(s, plan);
  MscclExport out;
  out.dependencies = place_steps(plan, tbs);
  out.chunks_per_loop = static_cast<int>(per_block) * (coll.multiplier_is_ranks ? s.spec.ranks : 1);

  pugi::xml_document doc;
  pugi::xml_node algo = doc.append_child("algo");
  set(algo, "name", o.name.empty() ? fmt::format("collsim_{}_{}", s.algorithm, s.spec.ranks) : o.name);
  set(algo, "proto", o.protocol);
  set(algo, "nchannels", s.channels);
  set(algo, "nchunksperloop", out.chunks_per_loop);
  set(algo, "ngpus", s.spec.ranks);
  set(algo, "coll", coll.name);
  set(algo, "inplace", s.spec.in_place ? 1 : 0);
  set(algo, "outofplace", s.spec.in_place ? 0 : 1);
  if (collective_has_root(s.spec.collective)) set(algo, "root", s.spec.root);
  for (int g = 0; g < s.spec.ranks; ++g) {
    pugi::xml_node gpu = algo.append_child("gpu");
    set(gpu, "id", g);
    set(gpu, "i_chunks", static_cast<long long>(s.buffer_elements(g, BufferKind::input) / chunk));
    set(gpu, "o_chunks", static_cast<long long>(s.buffer_elements(g, BufferKind::output) / chunk));
    set(gpu, "s_chunks", static_cast<long long>(s.buffer_elements(g, BufferKind::scratch) / chunk));
    const std::vector<Tb>& list = tbs[static_cast<std::size_t>(g)];
    for (std::size_t t = 0; t < list.size(); ++t) {
      pugi::xml_node tb = algo.last_child().append_child("tb");
      set(tb, "id", static_cast<long long>(t));
      set(tb, "send", list[t].send);
      set(tb, "recv", list[t].recv);
      set(tb, "chan", list[t].chan);
      ++out.thread_blocks;
      for (std::size_t i = 0; i < list[t].steps.size(); ++i) {
        const int id = list[t].steps[i];
        ++out.steps;
        if (id < 0) {
          const Op& on = plan.ops[static_cast<std::size_t>(-1 - id)];
          write_step(tb, static_cast<int>(i), "nop", nullptr, nullptr, chunk, 0, on.tb, on.index, false);
          continue;
        }
        const Op& op = plan.ops[static_cast<std::size_t>(id)];
        const StepType type = op.type;
        out.fused += type == StepType::rcs || type == StepType::rrs || type == StepType::rrcs;
        write_step(tb, static_cast<int>(i), msccl::step_type(type).name, &op.src, &op.dst, chunk, op.dst.count / chunk,
                   op.depid, op.deps, op.hasdep, op.writes,
                   op.writes >= 0 ? s.transfers[static_cast<std::size_t>(op.writes)].step : -1);
      }
    }
  }
  out.xml = to_text(doc);
  std::vector<msccl::ThreadBlockShape> shapes;
  for (int g = 0; g < s.spec.ranks; ++g) {
    const std::vector<Tb>& list = tbs[static_cast<std::size_t>(g)];
    for (std::size_t t = 0; t < list.size(); ++t)
      shapes.push_back({g, static_cast<int>(t), list[t].chan, static_cast<int>(list[t].steps.size()), list[t].send >= 0,
                        list[t].recv >= 0});
  }
  for (auto& [tb, why] : msccl::runtime_limit_problems(shapes)) out.warnings.push_back(std::move(why));
  return out;
}

std::uint64_t natural_export_count(CollectiveSpec spec, std::string_view algorithm, const AlgorithmOptions& options) {
  spec.count = 1 << 16;
  const std::size_t all = build_schedule(spec, algorithm, options).transfers.size();
  for (std::uint64_t k = 1; k < spec.count; ++k) {
    CollectiveSpec at = spec;
    at.count = k;
    if (build_schedule(at, algorithm, options).transfers.size() == all) return k;
  }
  return spec.count;
}

}  // namespace collsim
