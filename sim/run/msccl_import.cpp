// Reading an MSCCL algorithm file (msccl_import.h). Three stages: read the XML strictly into
// plain structs (every element and attribute known, every number in range, positions kept
// for messages); connect it (match sends with receives, build MSCCL's order as a graph);
// lay it out as collsim steps, with the races between the two orders reported.
//
// pugixml parses (a DOM that keeps each node's byte offset, from which the messages' line
// and column come; well kept, in Debian as libpugixml-dev).
#include "sim/run/msccl_import.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <queue>
#include <set>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "sim/check/dependencies.h"
#include "sim/core/text_file.h"
#include "sim/run/msccl_format.h"

namespace collsim {
namespace {

using Pos = ScheduleFile::Position;
using msccl::StepTypeInfo;

// --- the file as written --------------------------------------------------------------------

struct XStep {
  Pos at;
  int gpu = 0, tb = 0, s = 0;
  const StepTypeInfo* type = nullptr;
  std::optional<BufferKind> srcbuf, dstbuf;
  int srcoff = -1, dstoff = -1, cnt = 1, depid = -1, deps = -1;
  bool hasdep = false;
  // collsim's extension (MSCCL ignores it): the place in collsim's order of the transfer
  // this step writes, which collsim's exporter records so that a round trip keeps the order.
  std::optional<int> order;
  std::optional<int> step_hint;  // collsim_step: its step in collsim's schedule (1, 2, ...)
};
struct XTb {
  Pos at;
  int id = 0, send = -1, recv = -1, chan = 0;
  std::vector<XStep> steps;
};
struct XGpu {
  Pos at;
  int id = 0;
  int chunks[3] = {0, 0, 0};  // i_chunks, o_chunks, s_chunks, by BufferKind
  std::vector<XTb> tbs;
};
struct XAlgo {
  Pos at;
  std::string name, proto, coll;
  int nchannels = 1, nchunksperloop = 1, ngpus = 1, root = 0;
  std::optional<bool> inplace, outofplace;
  const msccl::CollName* collective = nullptr;
  std::vector<XGpu> gpus;  // by id
};

std::string step_name(int gpu, int tb, int s) { return fmt::format("GPU {}, thread block {}, step {}", gpu, tb, s); }
std::string step_name(const XStep& x) { return step_name(x.gpu, x.tb, x.s); }

// The text's positions and the one way this reader fails: "FILE:LINE:COLUMN: WHERE: PROBLEM".
class Source {
 public:
  Source(std::string_view text, std::string name) : name_(std::move(name)) {
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') newlines_.push_back(i);
  }
  const std::string& name() const { return name_; }
  Pos at(std::ptrdiff_t offset) const {
    const std::size_t o = static_cast<std::size_t>(std::max<std::ptrdiff_t>(offset, 0));
    const auto it = std::lower_bound(newlines_.begin(), newlines_.end(), o);
    const std::size_t start = it == newlines_.begin() ? 0 : *(it - 1) + 1;
    return {static_cast<int>(it - newlines_.begin()) + 1, static_cast<int>(o - start) + 1};
  }
  Pos at(const pugi::xml_node& n) const { return at(n.offset_debug()); }
  [[noreturn]] void fail(Pos p, std::string_view where, std::string_view problem) const {
    throw InputError(fmt::format("{}:{}:{}: {}{}{}", name_, p.line, p.column, where, where.empty() ? "" : ": ", problem));
  }

 private:
  std::string name_;
  std::vector<std::size_t> newlines_;
};

// One element's attributes, read strictly: unknown ones are refused, numbers are whole.
class Element {
 public:
  Element(const Source& src, pugi::xml_node n, std::string where, std::initializer_list<std::string_view> known)
      : src_(src), n_(n), where_(std::move(where)), at_(src.at(n)) {
    for (const pugi::xml_attribute& a : n.attributes())
      if (std::find(known.begin(), known.end(), std::string_view(a.name())) == known.end()) {
        std::string list;
        for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(fmt::format("<{}> has no attribute '{}' (it takes {})", n.name(), a.name(), list));
      }
  }
  Pos at() const { return at_; }
  const std::string& where() const { return where_; }
  [[noreturn]] void fail(std::string_view problem) const { src_.fail(at_, where_, problem); }

  std::optional<std::string> text(const char* key) const {
    const pugi::xml_attribute a = n_.attribute(key);
    if (!a) return std::nullopt;
    return std::string(a.value());
  }
  std::string required_text(const char* key, std::string_view what) const {
    std::optional<std::string> v = text(key);
    if (!v) fail(fmt::format("<{}> needs the attribute {} ({})", n_.name(), key, what));
    return *v;
  }
  std::optional<int> integer(const char* key, int lo, int hi) const {
    const std::optional<std::string> v = text(key);
    if (!v) return std::nullopt;
    int x = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    if (ec != std::errc() || end != v->data() + v->size())
      fail(fmt::format("{}=\"{}\" is not a whole number", key, *v));
    if (x < lo || x > hi) fail(fmt::format("{}={} is outside {}..{}", key, x, lo, hi));
    return x;
  }
  int required_integer(const char* key, int lo, int hi, std::string_view what) const {
    if (!n_.attribute(key)) fail(fmt::format("<{}> needs the attribute {} ({})", n_.name(), key, what));
    return *integer(key, lo, hi);
  }
  std::optional<bool> flag(const char* key) const {
    const std::optional<int> v = integer(key, 0, 1);
    if (!v) return std::nullopt;
    return *v == 1;
  }
  std::optional<BufferKind> buffer(const char* key) const {
    const std::optional<std::string> v = text(key);
    if (!v) return std::nullopt;
    const std::optional<BufferKind> b = msccl::parse_buffer(*v);
    if (!b) fail(fmt::format("{}=\"{}\" is not a buffer (i: input, o: output, s: scratch)", key, *v));
    return b;
  }

  // The child elements, all of them named `child`; text other than white space is refused.
  std::vector<pugi::xml_node> children(const char* child) const {
    std::vector<pugi::xml_node> out;
    for (const pugi::xml_node& c : n_.children()) {
      if (c.type() == pugi::node_element) {
        if (std::string_view(c.name()) != child)
          src_.fail(src_.at(c), where_, fmt::format("unknown element <{}> inside <{}> (only <{}>)", c.name(), n_.name(), child));
        out.push_back(c);
      } else if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
        const std::string_view t = c.value();
        if (t.find_first_not_of(" \t\r\n") != std::string_view::npos)
          src_.fail(src_.at(c), where_, fmt::format("unexpected text inside <{}>", n_.name()));
      }
    }
    return out;
  }

 private:
  const Source& src_;
  pugi::xml_node n_;
  std::string where_;
  Pos at_;
};

constexpr int kMaxIndex = 1 << 24;

XStep read_step(const Source& src, pugi::xml_node n, const XGpu& gpu, const XTb& tb, int index) {
  const Element e(src, n, step_name(gpu.id, tb.id, index),
                  {"s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep",
                   "collsim_order", "collsim_step"});
  XStep x;
  x.at = e.at();
  x.gpu = gpu.id;
  x.tb = tb.id;
  x.s = e.required_integer("s", 0, kMaxIndex, "the step's index in its thread block");
  if (x.s != index)
    e.fail(fmt::format("s={} but this is step {} of thread block {}: steps are numbered 0, 1, 2, ... in order", x.s,
                       index, tb.id));
  const std::string type = e.required_text("type", "s, r, rcs, rrs, rrc, rrcs, cpy, re or nop");
  x.type = msccl::find_step_type(type);
  if (!x.type) e.fail(fmt::format("unknown step type '{}' (s, r, rcs, rrs, rrc, rrcs, cpy, re or nop)", type));
  x.srcbuf = e.buffer("srcbuf");
  x.dstbuf = e.buffer("dstbuf");
  x.srcoff = e.integer("srcoff", -1, kMaxIndex).value_or(-1);
  x.dstoff = e.integer("dstoff", -1, kMaxIndex).value_or(-1);
  x.cnt = e.integer("cnt", 0, kMaxIndex).value_or(1);
  x.depid = e.integer("depid", -1, kMaxIndex).value_or(-1);
  x.deps = e.integer("deps", -1, kMaxIndex).value_or(-1);
  x.hasdep = e.flag("hasdep").value_or(false);
  x.order = e.integer("collsim_order", 0, std::numeric_limits<int>::max());
  x.step_hint = e.integer("collsim_step", 1, std::numeric_limits<int>::max());
  // rrs keeps no copy in MSCCL: collsim reduces into its src (the sum has to live somewhere).
  if (x.type->type == msccl::StepType::rrs && x.dstoff < 0) x.dstbuf = x.srcbuf, x.dstoff = x.srcoff;
  if ((x.depid < 0) != (x.deps < 0))
    e.fail(fmt::format("depid={} and deps={}: give both (the thread block and its step) or neither", x.depid, x.deps));
  if (x.type->sends && tb.send < 0)
    e.fail(fmt::format("a '{}' step sends, but thread block {} has no send peer (send=\"-1\")", type, tb.id));
  if (x.type->receives && tb.recv < 0)
    e.fail(fmt::format("a '{}' step receives, but thread block {} has no receive peer (recv=\"-1\")", type, tb.id));
  if (x.type->type != msccl::StepType::nop && x.cnt == 0) e.fail("cnt=0: the step moves no chunks");
  return x;
}

XTb read_tb(const Source& src, pugi::xml_node n, const XGpu& gpu, const XAlgo& a) {
  const Element e(src, n, fmt::format("GPU {}, <tb>", gpu.id), {"id", "send", "recv", "chan"});
  XTb tb;
  tb.at = e.at();
  tb.id = e.required_integer("id", 0, kMaxIndex, "the thread block's number on its GPU");
  const Element named(src, n, fmt::format("GPU {}, thread block {}", gpu.id, tb.id), {"id", "send", "recv", "chan"});
  tb.send = named.required_integer("send", -1, a.ngpus - 1, "the GPU it sends to, -1: none");
  tb.recv = named.required_integer("recv", -1, a.ngpus - 1, "the GPU it receives from, -1: none");
  tb.chan = named.required_integer("chan", 0, a.nchannels - 1, "its channel, below nchannels");
  if (tb.send == gpu.id || tb.recv == gpu.id) named.fail(fmt::format("a thread block of GPU {} cannot send to or receive from itself", gpu.id));
  const std::vector<pugi::xml_node> steps = named.children("step");
  for (std::size_t i = 0; i < steps.size(); ++i) tb.steps.push_back(read_step(src, steps[i], gpu, tb, static_cast<int>(i)));
  return tb;
}

XGpu read_gpu(const Source& src, pugi::xml_node n, const XAlgo& a) {
  const Element e(src, n, "<gpu>", {"id", "i_chunks", "o_chunks", "s_chunks"});
  XGpu g;
  g.at = e.at();
  g.id = e.required_integer("id", 0, a.ngpus - 1, "its rank, below ngpus");
  const Element named(src, n, fmt::format("GPU {}", g.id), {"id", "i_chunks", "o_chunks", "s_chunks"});
  g.chunks[0] = named.required_integer("i_chunks", 0, kMaxIndex, "chunks in its input buffer");
  g.chunks[1] = named.required_integer("o_chunks", 0, kMaxIndex, "chunks in its output buffer");
  g.chunks[2] = named.required_integer("s_chunks", 0, kMaxIndex, "chunks in its scratch buffer");
  std::set<int> ids;
  for (const pugi::xml_node& t : named.children("tb")) {
    g.tbs.push_back(read_tb(src, t, g, a));
    if (!ids.insert(g.tbs.back().id).second)
      src.fail(g.tbs.back().at, named.where(), fmt::format("two thread blocks have id {}", g.tbs.back().id));
  }
  return g;
}

XAlgo read_algo(const Source& src, const pugi::xml_document& doc) {
  pugi::xml_node root;
  for (const pugi::xml_node& c : doc.children())
    if (c.type() == pugi::node_element) {
      if (root || std::string_view(c.name()) != "algo")
        src.fail(src.at(c), "", fmt::format("unexpected <{}>: an MSCCL file holds one <algo> element", c.name()));
      root = c;
    }
  if (!root) src.fail({1, 1}, "", "no <algo> element: this is not an MSCCL algorithm file");
  const Element e(src, root, "<algo>",
                  {"name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll", "inplace", "outofplace", "minBytes",
                   "maxBytes", "root"});
  XAlgo a;
  a.at = e.at();
  a.name = e.text("name").value_or("");
  a.proto = e.text("proto").value_or("Simple");
  if (std::find(std::begin(msccl::kProtocols), std::end(msccl::kProtocols), a.proto) == std::end(msccl::kProtocols))
    e.fail(fmt::format("proto=\"{}\" is not one of MSCCL's protocols (Simple, LL, LL128)", a.proto));
  a.nchannels = e.required_integer("nchannels", 1, kMaxChannels, "how many channels its thread blocks use");
  a.nchunksperloop = e.required_integer("nchunksperloop", 1, kMaxIndex, "how many chunks one loop moves");
  a.ngpus = e.required_integer("ngpus", 1, kMaxRanks, "the number of GPUs (ranks)");
  a.coll = e.required_text("coll", msccl::coll_names());
  a.collective = msccl::find_coll(a.coll);
  if (!a.collective)
    e.fail(fmt::format("coll=\"{}\" is not a collective collsim reads ({})", a.coll, msccl::coll_names()));
  a.inplace = e.flag("inplace");
  a.outofplace = e.flag("outofplace");
  (void)e.integer("minBytes", 0, std::numeric_limits<int>::max());
  (void)e.integer("maxBytes", 0, std::numeric_limits<int>::max());
  if (const std::optional<int> r = e.integer("root", 0, a.ngpus - 1)) {
    if (!collective_has_root(a.collective->collective)) e.fail(fmt::format("root: {} has no root", a.coll));
    a.root = *r;
  }
  a.gpus.resize(static_cast<std::size_t>(a.ngpus));
  std::vector<bool> seen(a.gpus.size(), false);
  for (const pugi::xml_node& g : e.children("gpu")) {
    XGpu gpu = read_gpu(src, g, a);
    if (seen[static_cast<std::size_t>(gpu.id)]) src.fail(gpu.at, "", fmt::format("GPU {} is described twice", gpu.id));
    seen[static_cast<std::size_t>(gpu.id)] = true;
    a.gpus[static_cast<std::size_t>(gpu.id)] = std::move(gpu);
  }
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) e.fail(fmt::format("ngpus={} but there is no <gpu id=\"{}\">", a.ngpus, i));
  return a;
}

// --- the sizes of things ----------------------------------------------------------------------

// chunks_per_block: nchunksperloop / the coll's multiplier (msccl_format.h).
int chunks_per_block(const Source& src, const XAlgo& a) {
  const int m = a.collective->multiplier_is_ranks ? a.ngpus : 1;
  if (a.nchunksperloop % m != 0)
    src.fail(a.at, "<algo>",
             fmt::format("nchunksperloop={} is not a multiple of ngpus={}: a {} chunk is count * ngpus / nchunksperloop "
                         "elements, so a rank's block of count elements would not hold a whole number of chunks",
                         a.nchunksperloop, a.ngpus, a.coll));
  return a.nchunksperloop / m;
}

// Chunks that GPU g's buffer b has room for in collsim's layout (docs/design.md's buffer table).
int capacity(const XAlgo& a, int per_block, int g, BufferKind b) {
  const CollectiveSpec unit{a.collective->collective, a.ngpus, 1, DataType::f32, ReduceOp::sum, a.root, false};
  const std::uint64_t blocks = b == BufferKind::input ? input_elements(unit, kCustomAlgorithm, g)
                                                      : output_elements(unit, kCustomAlgorithm, g);
  return static_cast<int>(blocks) * per_block;
}

void check_gpu_sizes(const Source& src, const XAlgo& a, int per_block) {
  for (const XGpu& g : a.gpus)
    for (BufferKind b : {BufferKind::input, BufferKind::output}) {
      const int room = capacity(a, per_block, g.id, b);
      const int declared = g.chunks[static_cast<int>(b)];
      if (declared > room)
        src.fail(g.at, fmt::format("GPU {}", g.id),
                 fmt::format("{}_chunks={}, but the {} of a {} on {} GPUs holds {} chunks there (nchunksperloop={})",
                             msccl::buffer_letter(b), declared, to_string(b), a.coll, a.ngpus, room, a.nchunksperloop));
    }
}

// A side of a step the step uses: it must name a buffer and lie inside it.
void check_side(const Source& src, const XAlgo& a, const XStep& x, const char* side, std::optional<BufferKind> buf,
                int off) {
  if (!buf || off < 0)
    src.fail(x.at, step_name(x),
             fmt::format("a '{}' step needs {}buf and {}off (where its chunks lie)", x.type->name, side, side));
  const int have = a.gpus[static_cast<std::size_t>(x.gpu)].chunks[static_cast<int>(*buf)];
  if (off + x.cnt > have)
    src.fail(x.at, step_name(x),
             fmt::format("{}off={} cnt={} reaches chunk {}, but GPU {}'s {} has chunks 0..{} ({}_chunks={})", side, off,
                         x.cnt, off + x.cnt - 1, x.gpu, to_string(*buf), have - 1, msccl::buffer_letter(*buf), have));
}

// The local sides each type reads or writes (the other sides name the peer's, and are ignored).
bool uses_src(const XStep& x) { return x.type->type == msccl::StepType::s || x.type->local || (x.type->receives && x.type->reduces && x.srcoff >= 0); }
bool uses_dst(const XStep& x) { return x.type->receives || x.type->local; }

void check_steps(const Source& src, const XAlgo& a) {
  for (const XGpu& g : a.gpus)
    for (const XTb& tb : g.tbs)
      for (const XStep& x : tb.steps) {
        if (uses_src(x)) check_side(src, a, x, "src", x.srcbuf, x.srcoff);
        if (uses_dst(x)) check_side(src, a, x, "dst", x.dstbuf, x.dstoff);
      }
}

// --- MSCCL's order as a graph ---------------------------------------------------------------

// A point in MSCCL's order. A transfer has two: where its data is read (the send, which
// does not wait for the receiver: NCCL's connections are buffered) and where it is
// written (the receive). A local copy or reduce is one point; a nop is a point of its own.
struct Node {
  std::vector<std::uint32_t> preds;
  const XStep* step = nullptr;
  int writes = -1;  // the transfer this node writes, if any
};

// A collsim transfer, in MSCCL's terms.
struct XTransfer {
  int src = 0, dst = 0;
  BufferKind src_buffer = BufferKind::output, dst_buffer = BufferKind::output;
  int src_chunk = 0, dst_chunk = 0, cnt = 1;
  Action action = Action::copy;
  const XStep* writer = nullptr;  // the receive, or the local step
  const XStep* reader = nullptr;  // the send (the writer for a local step)
  std::uint32_t read_node = 0, write_node = 0;
  bool pre = false;  // a copy that waits for nothing: a pre-operation
  int chan = 0;      // its thread block's channel (the connection's, for a send and its receive)
  // A receive that reduces with a local operand elsewhere than its result (rrc with srcbuf
  // or srcoff not its dst): collsim's reduce_copy.
  BufferKind operand_buffer = BufferKind::input;
  int operand_chunk = 0;
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<XTransfer> transfers;
  // Per step (by address): the node its predecessors feed, and the node its successors wait for.
  std::map<const XStep*, std::pair<std::uint32_t, std::uint32_t>> ends;
  std::map<const XStep*, std::uint32_t> send_node, recv_node;

  std::uint32_t add(const XStep* s, std::vector<std::uint32_t> preds = {}) {
    nodes.push_back({std::move(preds), s, -1});
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
  void edge(std::uint32_t from, std::uint32_t to) { nodes[to].preds.push_back(from); }
};

// A copy from the input at the head of its thread block (behind only other such copies)
// with no dependency: ready before anything runs, so collsim's pre-operation.
bool is_pre_copy(const XTb& tb, std::size_t i) {
  for (std::size_t k = 0; k <= i; ++k) {
    const XStep& x = tb.steps[k];
    if (x.depid >= 0) return false;
    if (x.type->type != msccl::StepType::cpy || x.srcbuf != BufferKind::input) return false;
  }
  return true;
}

void add_step_nodes(Graph& g, const XTb& tb, std::size_t i) {
  const XStep& x = tb.steps[i];
  const std::uint32_t first = static_cast<std::uint32_t>(g.nodes.size());
  if (x.type->local) {
    const std::uint32_t n = g.add(&x);
    XTransfer t{x.gpu, x.gpu, *x.srcbuf, *x.dstbuf, x.srcoff, x.dstoff, x.cnt,
                x.type->reduces ? Action::reduce : Action::copy, &x, &x, n, n, is_pre_copy(tb, i), tb.chan};
    if (!t.pre) g.nodes[n].writes = static_cast<int>(g.transfers.size());
    g.transfers.push_back(t);
  } else if (x.type->receives) {
    const std::uint32_t r = g.add(&x);
    g.recv_node[&x] = r;
    if (x.type->sends) g.send_node[&x] = g.add(&x, {r});
  } else if (x.type->sends) {
    g.send_node[&x] = g.add(&x);
  } else {
    g.add(&x);  // nop
  }
  g.ends[&x] = {first, static_cast<std::uint32_t>(g.nodes.size() - 1)};
}

// The thread blocks of (sender, receiver, channel), each unique, as MSCCL requires.
struct Connection {
  const XTb* sender = nullptr;
  const XTb* receiver = nullptr;
};

std::map<std::tuple<int, int, int>, Connection> connections(const Source& src, const XAlgo& a) {
  std::map<std::tuple<int, int, int>, Connection> c;
  for (const XGpu& g : a.gpus)
    for (const XTb& tb : g.tbs) {
      // The thread block takes its end of the connection, which no other may hold.
      auto claim = [&](const XTb*& end, std::string_view does, int peer) {
        if (end)
          src.fail(tb.at, fmt::format("GPU {}, thread block {}", g.id, tb.id),
                   fmt::format("thread block {} already {} GPU {} on channel {}: one thread block per peer and "
                               "channel, so that the order of the chunks is defined",
                               end->id, does, peer, tb.chan));
        end = &tb;
      };
      if (tb.send >= 0) claim(c[{g.id, tb.send, tb.chan}].sender, "sends to", tb.send);
      if (tb.recv >= 0) claim(c[{tb.recv, g.id, tb.chan}].receiver, "receives from", tb.recv);
    }
  return c;
}

// Where a sending step's chunks come from: s sends its src; the fused types forward what they received.
std::pair<BufferKind, int> sent_place(const XStep& x) {
  return x.type->type == msccl::StepType::s ? std::pair{*x.srcbuf, x.srcoff} : std::pair{*x.dstbuf, x.dstoff};
}

void match(const Source& src, const XAlgo& a, Graph& g) {
  for (const auto& [key, c] : connections(src, a)) {
    const auto [from, to, chan] = key;
    std::vector<const XStep*> sends, recvs;
    if (c.sender)
      for (const XStep& x : c.sender->steps)
        if (x.type->sends) sends.push_back(&x);
    if (c.receiver)
      for (const XStep& x : c.receiver->steps)
        if (x.type->receives) recvs.push_back(&x);
    for (std::size_t i = 0; i < std::max(sends.size(), recvs.size()); ++i) {
      if (i >= recvs.size())
        src.fail(sends[i]->at, step_name(*sends[i]),
                 fmt::format("sends to GPU {} on channel {}, but GPU {} has no receive left to match it ({} of its "
                             "steps receive from GPU {} on channel {}, and this is send number {})",
                             to, chan, to, recvs.size(), from, chan, i + 1));
      if (i >= sends.size())
        src.fail(recvs[i]->at, step_name(*recvs[i]),
                 fmt::format("receives from GPU {} on channel {}, but GPU {} sends nothing more there ({} of its steps "
                             "send to GPU {} on channel {}, and this is receive number {})",
                             from, chan, from, sends.size(), to, chan, i + 1));
      const XStep& s = *sends[i];
      const XStep& r = *recvs[i];
      if (s.cnt != r.cnt)
        src.fail(r.at, step_name(r),
                 fmt::format("receives cnt={} chunks, but the matching send ({}, line {}) sends cnt={}", r.cnt,
                             step_name(s), s.at.line, s.cnt));
      const auto [sb, so] = sent_place(s);
      const std::uint32_t sn = g.send_node.at(&s), rn = g.recv_node.at(&r);
      g.edge(sn, rn);
      g.nodes[rn].writes = static_cast<int>(g.transfers.size());
      XTransfer t{from, to, sb, *r.dstbuf, so, r.dstoff, r.cnt, r.type->reduces ? Action::reduce : Action::copy,
                  &r, &s, sn, rn, false, chan};
      // A reduce whose operand lies elsewhere than its result: the sum of the two is written there.
      if (r.type->reduces && r.srcoff >= 0 && (r.srcbuf != r.dstbuf || r.srcoff != r.dstoff)) {
        t.action = Action::reduce_copy;
        t.operand_buffer = *r.srcbuf;
        t.operand_chunk = r.srcoff;
      }
      g.transfers.push_back(t);
    }
  }
}

// Thread-block order and depid/deps.
void order_edges(const Source& src, const XAlgo& a, Graph& g) {
  for (const XGpu& gpu : a.gpus)
    for (const XTb& tb : gpu.tbs)
      for (std::size_t i = 0; i < tb.steps.size(); ++i) {
        const XStep& x = tb.steps[i];
        const std::uint32_t first = g.ends.at(&x).first;
        if (i > 0) g.edge(g.ends.at(&tb.steps[i - 1]).second, first);
        if (x.depid < 0) continue;
        const auto it = std::find_if(gpu.tbs.begin(), gpu.tbs.end(), [&](const XTb& t) { return t.id == x.depid; });
        if (it == gpu.tbs.end())
          src.fail(x.at, step_name(x), fmt::format("depends on thread block {} (depid), which GPU {} does not have", x.depid, x.gpu));
        if (x.deps >= static_cast<int>(it->steps.size()))
          src.fail(x.at, step_name(x),
                   fmt::format("depends on step {} of thread block {} (deps), which has steps 0..{}", x.deps, x.depid,
                               static_cast<int>(it->steps.size()) - 1));
        const XStep& on = it->steps[static_cast<std::size_t>(x.deps)];
        if (!on.hasdep)
          src.fail(on.at, step_name(on),
                   fmt::format("{} depends on it, but it has hasdep=\"0\": MSCCL's runtime signals only the steps marked "
                               "hasdep=\"1\", so the waiting step would wait forever",
                               step_name(x)));
        g.edge(g.ends.at(&on).second, first);
      }
}

// Kahn's algorithm; a cycle is a deadlock. Among the nodes ready, receives first, in the
// order their sends were taken (collsim's transfer reads and writes at once, so its place
// in collsim's order is best right after its send), then the others in the file's order.
//
// `hinted`: the writes instead in the order of their collsim_order (every other node as
// soon as it is ready), which is that order exactly when it agrees with MSCCL's.
std::vector<std::uint32_t> topological_order(const Source& src, const Graph& g, bool hinted) {
  const std::size_t n = g.nodes.size();
  std::vector<std::vector<std::uint32_t>> succ(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::uint32_t v = 0; v < n; ++v)
    for (std::uint32_t p : g.nodes[v].preds) succ[p].push_back(v), ++waiting[v];
  // (not a receive, its send's place in the order or the node itself, node): smallest first.
  using Ready = std::tuple<bool, std::size_t, std::uint32_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
  std::vector<std::size_t> taken(n, 0);
  const auto push = [&](std::uint32_t v) {
    const int t = g.nodes[v].writes;
    const std::uint32_t send = t >= 0 ? g.transfers[static_cast<std::size_t>(t)].read_node : v;
    if (hinted) ready.push({t >= 0, t >= 0 ? static_cast<std::size_t>(*g.transfers[static_cast<std::size_t>(t)].writer->order) : v, v});
    else if (send != v) ready.push({false, taken[send], v});
    else ready.push({true, v, v});
  };
  for (std::uint32_t v = 0; v < n; ++v)
    if (waiting[v] == 0) push(v);
  std::vector<std::uint32_t> order;
  // A send has taken its data but its receive has not written it yet: NCCL's connection
  // holds it, so the sender may overwrite its source. collsim's transfer reads at its
  // place in the order, so such a write waits until the receive has had its place.
  std::vector<std::vector<int>> sends_at(n);  // per node: the transfers whose data it takes
  for (std::size_t t = 0; t < g.transfers.size(); ++t)
    if (g.transfers[t].read_node != g.transfers[t].write_node) sends_at[g.transfers[t].read_node].push_back(static_cast<int>(t));
  std::vector<int> in_flight;          // transfers whose send is taken and receive is not
  std::vector<std::uint32_t> deferred;  // writes that wait for one of them
  const auto overwrites_in_flight = [&](std::uint32_t v) {
    const int w = g.nodes[v].writes;
    if (w < 0) return false;
    const XTransfer& x = g.transfers[static_cast<std::size_t>(w)];
    for (int f : in_flight) {
      const XTransfer& t = g.transfers[static_cast<std::size_t>(f)];
      if (f != w && t.src == x.dst && t.src_buffer == x.dst_buffer && t.src_chunk < x.dst_chunk + x.cnt &&
          x.dst_chunk < t.src_chunk + t.cnt)
        return true;
    }
    return false;
  };
  while (!ready.empty() || !deferred.empty()) {
    if (ready.empty()) {  // nothing else can run: the write goes first after all
      for (std::uint32_t d : deferred) ready.push({true, d, d});
      deferred.clear();
      in_flight.clear();
      continue;
    }
    const std::uint32_t v = std::get<2>(ready.top());
    ready.pop();
    if (overwrites_in_flight(v)) {
      deferred.push_back(v);
      continue;
    }
    taken[v] = order.size();
    order.push_back(v);
    if (const int w = g.nodes[v].writes; w >= 0) {
      const XTransfer& t = g.transfers[static_cast<std::size_t>(w)];
      in_flight.erase(std::remove(in_flight.begin(), in_flight.end(), w), in_flight.end());
      if (t.read_node != t.write_node && !deferred.empty()) {
        for (std::uint32_t d : deferred) push(d);
        deferred.clear();
      }
    }
    for (int t : sends_at[v]) in_flight.push_back(t);
    for (std::uint32_t s : succ[v])
      if (--waiting[s] == 0) push(s);
  }
  if (order.size() == n) return order;
  // Walk back along waiting predecessors until a node repeats: that is the cycle.
  std::uint32_t v = 0;
  while (waiting[v] == 0) ++v;
  std::vector<std::uint32_t> path;
  std::vector<int> seen(n, -1);
  while (seen[v] < 0) {
    seen[v] = static_cast<int>(path.size());
    path.push_back(v);
    for (std::uint32_t p : g.nodes[v].preds)
      if (waiting[p] > 0) {
        v = p;
        break;
      }
  }
  std::string cycle;
  const XStep* last = nullptr;
  for (std::size_t i = path.size(); i-- > static_cast<std::size_t>(seen[v]);) {
    const XStep* s = g.nodes[path[i]].step;
    if (s == last) continue;
    cycle += fmt::format("{}{} (line {})", cycle.empty() ? "" : ", then ", step_name(*s), s->at.line);
    last = s;
  }
  const XStep& at = *g.nodes[v].step;
  src.fail(at.at, step_name(at),
           fmt::format("deadlock: these steps wait for each other in a circle (thread-block order, depid/deps, and each "
                       "receive waiting for its send): {}. MSCCL's runtime would hang",
                       cycle));
}

// --- collsim's steps ---------------------------------------------------------------------------

ScheduleFile::Place place(int chunk, int cnt) {
  ScheduleFile::Place p;
  p.chunk = chunk;
  p.chunks = cnt;
  return p;
}

// The file's transfers, each a step of its own, in `order` (collsim's derived dependencies
// are computed on it).
ScheduleFile one_per_step(const ScheduleFile& head, const Graph& g, const std::vector<int>& order) {
  ScheduleFile f = head;
  f.steps.clear();
  for (int i : order) {
    const XTransfer& t = g.transfers[static_cast<std::size_t>(i)];
    ScheduleFile::Transfer x;
    x.at = t.writer->at;
    x.key = step_name(*t.writer);
    x.origin = t.src == t.dst ? step_name(*t.writer)
                              : fmt::format("{} (receiving from {})", step_name(*t.writer), step_name(*t.reader));
    x.src = t.src;
    x.dst = t.dst;
    x.src_buffer = t.src_buffer;
    x.dst_buffer = t.dst_buffer;
    x.from = place(t.src_chunk, t.cnt);
    x.to = place(t.dst_chunk, t.cnt);
    x.action = t.action;
    x.channel = t.chan;
    x.operand_buffer = t.operand_buffer;
    x.with = place(t.operand_chunk, t.cnt);
    f.steps.push_back({x.at, "", {x}});
  }
  return f;
}

// One hazard between two transfers of the file (indices into Graph::transfers).
struct FileHazard {
  int earlier, later;
  Hazard kind;
  bool operand_read = false;  // the read is a reduce_copy's operand, done by its receive
};

// collsim's derived dependencies of the file's transfers in `order`, at a count where
// every chunk is one element (so regions overlap exactly when chunks do).
std::vector<FileHazard> derived_hazards(const ScheduleFile& one, const std::vector<int>& order, int ranks, int root) {
  const CollectiveSpec spec{one.collective, ranks, static_cast<std::uint64_t>(one.chunks_per_block), DataType::f32,
                            ReduceOp::sum, root, one.in_place.value_or(false)};
  const BuiltSchedule built = build_from_file(one, spec);
  const Schedule& s = built.schedule;
  std::vector<FileHazard> out;
  (void)derive_dependencies(s, [&](std::uint32_t e, std::uint32_t l, Hazard h) {
    const int fe = order[built.file_step[e]], fl = order[built.file_step[l]];
    if (h == Hazard::write_after_write) return out.push_back({fe, fl, h, false});
    // The reading transfer reads its source at the sender, a reduce_copy's operand at the receiver.
    const ReadsTouched r = h == Hazard::read_after_write
                               ? reads_touching(s, s.transfers[l], storage_of(s, s.transfers[e].destination()))
                               : reads_touching(s, s.transfers[e], storage_of(s, s.transfers[l].destination()));
    if (r.source) out.push_back({fe, fl, h, false});
    if (r.operand) out.push_back({fe, fl, h, true});
  });
  return out;
}

// Whether MSCCL's order puts node `from` before node `to` (a walk back from `to`).
class Reach {
 public:
  Reach(const Graph& g, const std::vector<std::uint32_t>& topo) : g_(g), rank_(g.nodes.size()), mark_(g.nodes.size(), 0) {
    for (std::size_t i = 0; i < topo.size(); ++i) rank_[topo[i]] = i;
  }
  bool before(std::uint32_t from, std::uint32_t to) {
    if (from == to) return true;
    ++stamp_;
    std::vector<std::uint32_t> stack{to};
    while (!stack.empty()) {
      const std::uint32_t v = stack.back();
      stack.pop_back();
      for (std::uint32_t p : g_.nodes[v].preds) {
        if (p == from) return true;
        if (mark_[p] == stamp_ || rank_[p] < rank_[from]) continue;
        mark_[p] = stamp_;
        stack.push_back(p);
      }
    }
    return false;
  }

 private:
  const Graph& g_;
  std::vector<std::size_t> rank_;
  std::vector<std::uint32_t> mark_;
  std::uint32_t stamp_ = 0;
};

std::string chunks_of(const XTransfer& t, bool source) {
  const int rank = source ? t.src : t.dst, chunk = source ? t.src_chunk : t.dst_chunk;
  const BufferKind b = source ? t.src_buffer : t.dst_buffer;
  return t.cnt == 1 ? fmt::format("chunk {} of GPU {}'s {}", chunk, rank, to_string(b))
                    : fmt::format("chunks {}..{} of GPU {}'s {}", chunk, chunk + t.cnt - 1, rank, to_string(b));
}

// Races: a derived dependency MSCCL's order does not enforce.
void warn_races(const Source& src, const Graph& g, Reach& reach, const std::vector<FileHazard>& hazards,
                std::vector<std::string>& warnings) {
  std::set<std::pair<const XStep*, const XStep*>> said;
  std::vector<std::pair<Pos, std::string>> found;  // said in the file's order
  for (const FileHazard& h : hazards) {
    const XTransfer& e = g.transfers[static_cast<std::size_t>(h.earlier)];
    const XTransfer& l = g.transfers[static_cast<std::size_t>(h.later)];
    // Where each one touches the data: a send reads at the sender, a receive writes at the receiver.
    const bool e_reads = h.kind == Hazard::write_after_read, l_reads = h.kind == Hazard::read_after_write;
    // A reduce_copy reads its operand in its receive.
    const bool e_sends = e_reads && !h.operand_read, l_sends = l_reads && !h.operand_read;
    const std::uint32_t from = e_sends ? e.read_node : e.write_node, to = l_sends ? l.read_node : l.write_node;
    if (reach.before(from, to)) continue;
    const XStep& es = *(e_sends ? e.reader : e.writer);
    const XStep& ls = *(l_sends ? l.reader : l.writer);
    if (!said.insert({&es, &ls}).second) continue;
    const std::string what = h.kind == Hazard::read_after_write  ? fmt::format("reads {}, which", chunks_of(l, true))
                             : h.kind == Hazard::write_after_read ? fmt::format("writes {}, which", chunks_of(l, false))
                                                                  : fmt::format("writes {}, which", chunks_of(l, false));
    found.emplace_back(ls.at, fmt::format(
        "{}:{}:{}: race: {} {} {} (line {}) {}, but nothing in the file makes one wait for the other "
        "(not the same thread block, no depid/deps chain): MSCCL may run them in either order. collsim runs {} first",
        src.name(), ls.at.line, ls.at.column, step_name(ls), what, step_name(es), es.at.line,
        e_reads ? "reads" : "writes", step_name(es)));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::pair{a.first.line, a.first.column} < std::pair{b.first.line, b.first.column};
  });
  for (auto& [at, text] : found) warnings.push_back(std::move(text));
}

// Needless waits: a depid/deps between steps whose transfers collsim finds no dependency between.
void warn_needless_waits(const Source& src, const XAlgo& a, const Graph& g, const std::vector<FileHazard>& hazards,
                         std::vector<std::string>& warnings) {
  std::vector<std::vector<int>> after(g.transfers.size());
  for (const FileHazard& h : hazards) after[static_cast<std::size_t>(h.earlier)].push_back(h.later);
  std::map<const XStep*, std::vector<int>> of;
  for (std::size_t i = 0; i < g.transfers.size(); ++i)
    if (!g.transfers[i].pre) {
      of[g.transfers[i].writer].push_back(static_cast<int>(i));
      if (g.transfers[i].reader != g.transfers[i].writer) of[g.transfers[i].reader].push_back(static_cast<int>(i));
    }
  for (const XGpu& gpu : a.gpus)
    for (const XTb& tb : gpu.tbs)
      for (const XStep& x : tb.steps) {
        if (x.depid < 0 || !of.count(&x)) continue;
        const XTb& on_tb = *std::find_if(gpu.tbs.begin(), gpu.tbs.end(), [&](const XTb& t) { return t.id == x.depid; });
        const XStep& on = on_tb.steps[static_cast<std::size_t>(x.deps)];
        if (!of.count(&on)) continue;
        std::vector<bool> seen(g.transfers.size(), false);
        std::vector<int> stack = of[&on];
        const std::vector<int>& targets = of[&x];
        bool needed = false;
        while (!stack.empty() && !needed) {
          const int t = stack.back();
          stack.pop_back();
          for (int n : after[static_cast<std::size_t>(t)]) {
            if (std::find(targets.begin(), targets.end(), n) != targets.end()) needed = true;
            if (!seen[static_cast<std::size_t>(n)]) seen[static_cast<std::size_t>(n)] = true, stack.push_back(n);
          }
        }
        if (!needed)
          warnings.push_back(fmt::format(
              "{}:{}:{}: needless wait: {} waits for {} (depid/deps), but they touch no common data "
              "(collsim derives no dependency between them): the wait costs time and prevents no race",
              src.name(), x.at.line, x.at.column, step_name(x), step_name(on)));
      }
}

// Where the file is beyond what MSCCL's runtime takes (msccl_format.h): collsim runs it,
// the runtime would refuse it.
void warn_runtime_limits(const Source& src, const XAlgo& a, std::vector<std::string>& warnings) {
  std::vector<msccl::ThreadBlockShape> shapes;
  std::vector<const XTb*> of;
  for (const XGpu& g : a.gpus)
    for (const XTb& tb : g.tbs) {
      shapes.push_back({g.id, tb.id, tb.chan, static_cast<int>(tb.steps.size()), tb.send >= 0, tb.recv >= 0});
      of.push_back(&tb);
    }
  for (const auto& [i, why] : msccl::runtime_limit_problems(shapes))
    warnings.push_back(fmt::format("{}:{}:{}: {}", src.name(), of[i]->at.line, of[i]->at.column, why));
}

struct Hints {
  bool any = false, complete = true;  // some / every transfer's writer carries collsim_order
};
Hints read_hints(const Graph& g) {
  Hints h;
  std::set<int> seen;
  for (const XTransfer& t : g.transfers) {
    if (t.pre) continue;
    const bool own = t.writer->order && t.writer->step_hint && seen.insert(*t.writer->order).second;
    h.any |= t.writer->order.has_value() || t.writer->step_hint.has_value();
    h.complete &= own;
  }
  h.complete &= h.any;
  return h;
}
bool writes_in_hint_order(const Graph& g, const std::vector<std::uint32_t>& topo) {
  int last = -1;
  for (std::uint32_t v : topo)
    if (const int t = g.nodes[v].writes; t >= 0) {
      const int o = *g.transfers[static_cast<std::size_t>(t)].writer->order;
      if (o < last) return false;
      last = o;
    }
  return true;
}
// collsim's steps, where the file carries them: never going back along the order, and
// each transfer in a later step than those it depends on (two reduces into one place
// excepted: they may share a step).
bool hinted_steps_hold(const Graph& g, const std::vector<int>& order, const std::vector<FileHazard>& hazards) {
  const auto step = [&](int t) { return *g.transfers[static_cast<std::size_t>(t)].writer->step_hint; };
  for (std::size_t i = 1; i < order.size(); ++i)
    if (step(order[i]) < step(order[i - 1])) return false;
  for (const FileHazard& h : hazards) {
    const bool accumulate = h.kind == Hazard::write_after_write &&
                            g.transfers[static_cast<std::size_t>(h.earlier)].action == Action::reduce &&
                            g.transfers[static_cast<std::size_t>(h.later)].action == Action::reduce;
    if (step(h.later) < step(h.earlier) + (accumulate ? 0 : 1)) return false;
  }
  return true;
}

void hints_ignored(const Source& src, const XAlgo& a, std::vector<std::string>& warnings) {
  warnings.push_back(fmt::format(
      "{}:{}:{}: the collsim_order and collsim_step attributes (collsim's order and steps, written by export-msccl) "
      "are incomplete or disagree with the file's own order, so they are ignored: collsim orders the transfers as "
      "MSCCL's order allows",
      src.name(), a.at.line, a.at.column));
}

ScheduleFile::PreOp pre_op(const XTransfer& t) {
  ScheduleFile::PreOp op;
  op.at = t.writer->at;
  op.key = step_name(*t.writer);
  op.kind = ScheduleFile::PreKind::copy;
  op.rank = t.src;
  op.src_buffer = t.src_buffer;
  op.dst_buffer = t.dst_buffer;
  op.from = place(t.src_chunk, t.cnt);
  op.to = place(t.dst_chunk, t.cnt);
  return op;
}

ScheduleFile head_of(const XAlgo& a, const Source& src, int per_block) {
  ScheduleFile f;
  f.source = src.name();
  f.title = a.name.empty() ? "MSCCL algorithm" : a.name;
  f.description = fmt::format("MSCCL algorithm{}: {} on {} GPUs, protocol {}, {} channel{}, {} chunks per loop",
                              a.name.empty() ? "" : " '" + a.name + "'", a.coll, a.ngpus, a.proto, a.nchannels,
                              a.nchannels == 1 ? "" : "s", a.nchunksperloop);
  f.collective = a.collective->collective;
  f.msccl = true;
  f.protocol = a.proto == "Simple" ? "simple" : a.proto == "LL" ? "ll" : "ll128";  // --protocol's names
  f.ranks = a.ngpus;
  f.root = a.root;
  f.chunks_per_block = per_block;
  f.channels = a.nchannels;
  int scratch = 0;
  for (const XGpu& g : a.gpus) scratch = std::max(scratch, g.chunks[2]);
  f.scratch_blocks = (scratch + per_block - 1) / per_block;
  // Only one of the two layouts: that one (where collsim has it).
  if (a.inplace.value_or(true) != a.outofplace.value_or(true) && collective_supports_in_place(f.collective))
    f.in_place = a.inplace.value_or(false);
  f.collective_at = f.ranks_at = f.root_at = f.count_at = a.at;
  return f;
}

}  // namespace

std::string why_no_msccl() { return ""; }

namespace {

// MSCCL's order as a graph: every step's nodes, sends matched with receives, thread-block
// order and depid/deps.
Graph build_graph(const Source& src, const XAlgo& a) {
  Graph g;
  for (const XGpu& gpu : a.gpus)
    for (const XTb& tb : gpu.tbs)
      for (std::size_t i = 0; i < tb.steps.size(); ++i) add_step_nodes(g, tb, i);
  match(src, a, g);
  order_edges(src, a, g);
  return g;
}

// The order collsim lays the file out in: collsim's own where the file carries it (an
// export of collsim's) and it agrees with MSCCL's; otherwise MSCCL's order alone.
struct Layout {
  std::vector<std::uint32_t> topo;  // every node
  bool hinted = false;              // the writes in collsim_order's order
};
Layout choose_order(const Source& src, const XAlgo& a, const Graph& g, std::vector<std::string>& warnings) {
  Layout out{topological_order(src, g, false), false};
  const Hints hints = read_hints(g);
  if (hints.complete) {
    std::vector<std::uint32_t> kept = topological_order(src, g, true);
    out.hinted = writes_in_hint_order(g, kept);
    if (out.hinted) out.topo = std::move(kept);
  }
  if (hints.any && !out.hinted) hints_ignored(src, a, warnings);
  return out;
}

// Each node's level: a write comes after everything MSCCL orders before it and after every
// transfer collsim derives it depends on (which resolves a race in the file's order). In
// collsim's order (hinted) a level never goes back, so that steps are contiguous in it.
std::vector<int> levels(const Graph& g, const Layout& layout, const std::vector<FileHazard>& hazards) {
  std::vector<std::vector<int>> depends(g.transfers.size());
  for (const FileHazard& h : hazards) depends[static_cast<std::size_t>(h.later)].push_back(h.earlier);
  std::vector<int> level(g.nodes.size(), 0);
  int last_write = 0;
  for (std::uint32_t v : layout.topo) {
    int l = 0;
    for (std::uint32_t p : g.nodes[v].preds) l = std::max(l, level[p]);
    if (const int t = g.nodes[v].writes; t >= 0) {
      for (int d : depends[static_cast<std::size_t>(t)])
        l = std::max(l, level[g.transfers[static_cast<std::size_t>(d)].write_node]);
      ++l;
      if (layout.hinted) l = std::max(l, last_write), last_write = l;
    }
    level[v] = l;
  }
  return level;
}

}  // namespace

ScheduleFile parse_msccl(std::string_view text, const std::string& source) {
  const Source src(text, source);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) src.fail(src.at(parsed.offset), "", fmt::format("not well-formed XML: {}", parsed.description()));
  const XAlgo a = read_algo(src, doc);
  const int per_block = chunks_per_block(src, a);
  check_gpu_sizes(src, a, per_block);
  check_steps(src, a);
  const Graph g = build_graph(src, a);

  ScheduleFile f = head_of(a, src, per_block);
  const Layout layout = choose_order(src, a, g, f.warnings);
  for (const XTransfer& t : g.transfers)
    if (t.pre) f.pre.push_back(pre_op(t));
  std::vector<int> order;  // the transfers in the order of their writes
  for (std::uint32_t v : layout.topo)
    if (g.nodes[v].writes >= 0) order.push_back(g.nodes[v].writes);
  const ScheduleFile one = one_per_step(f, g, order);
  const std::vector<FileHazard> hazards = derived_hazards(one, order, a.ngpus, a.root);

  // collsim's steps where the file carries them and they hold; else the levels.
  const std::vector<int> level = levels(g, layout, hazards);
  const bool steps_kept = layout.hinted && hinted_steps_hold(g, order, hazards);
  if (layout.hinted && !steps_kept) hints_ignored(src, a, f.warnings);
  std::map<int, std::vector<ScheduleFile::Transfer>> by_step;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const XTransfer& t = g.transfers[static_cast<std::size_t>(order[i])];
    by_step[steps_kept ? *t.writer->step_hint : level[t.write_node]].push_back(one.steps[i].transfers[0]);
  }
  for (auto& [step, transfers] : by_step) f.steps.push_back({transfers.front().at, "", std::move(transfers)});

  Reach reach(g, layout.topo);
  warn_races(src, g, reach, hazards, f.warnings);
  warn_needless_waits(src, a, g, hazards, f.warnings);
  warn_runtime_limits(src, a, f.warnings);
  return f;
}

ScheduleFile load_msccl_file(const std::filesystem::path& path) {
  return parse_msccl(read_text_file(path, "MSCCL algorithm file"), path.string());
}

}  // namespace collsim
