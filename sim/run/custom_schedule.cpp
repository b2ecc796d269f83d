// The hand-written schedule loader and builder (the explanations of a wrong schedule are in
// custom_schedule_explain.cpp). Strict like the scenario loader: a student's typo must be
// an error with a position, not a transfer silently left out.
#include "sim/run/custom_schedule.h"

#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "sim/check/checker.h"
#include "sim/run/msccl_import.h"
#include "sim/schedule/partition.h"
#include "sim/schedule/schedule_builder.h"
#include "sim/core/text_file.h"
#include "sim/core/toml_fields.h"

namespace collsim {
namespace {

using toml_fields::Entry;
using toml_fields::Table;
using Place = ScheduleFile::Place;

const std::string& format_name() {
  static const std::string name = fmt::format("schedule format {}", kScheduleFormatVersion);
  return name;
}

constexpr Action kActions[] = {Action::copy, Action::reduce, Action::reduce_copy};
constexpr int kMaxChunkIndex = 1 << 24;

ScheduleFile::Position position(const Entry& e) { return {e.line(), e.column()}; }

// barrier's tokens and send_recv's algorithm-dependent layout do not fit the chunk model.
bool hand_writable(Collective c) { return c != Collective::barrier && c != Collective::send_recv; }

// Blocks of `count` elements that (rank, buffer) holds: its size at count 1.
std::uint64_t blocks(const ScheduleFile& f, int rank, BufferKind b) {
  if (b == BufferKind::scratch) return static_cast<std::uint64_t>(f.scratch_blocks);
  const CollectiveSpec unit{f.collective, f.ranks, 1, DataType::f32, ReduceOp::sum, f.root, false};
  return b == BufferKind::input ? input_elements(unit, kCustomAlgorithm, rank)
                                : output_elements(unit, kCustomAlgorithm, rank);
}

std::string buffer_name(int rank, BufferKind b) { return fmt::format("rank {}'s {}", rank, to_string(b)); }

// An element count: a non-negative integer, or a string such as "1M".
std::uint64_t read_count(const Entry& e) {
  if (e.node().is_integer()) return static_cast<std::uint64_t>(e.integer(1, std::numeric_limits<std::int64_t>::max()));
  if (!e.node().is_string()) e.wrong_type("an integer or a string such as \"64K\"");
  const auto n = parse_count(e.string());
  if (!n || *n == 0)
    e.fail(fmt::format("'{}' is not a count (a positive integer, optionally with K, M or G)", e.string()));
  return *n;
}

Entry required(const Table& t, const Entry& owner, std::string_view key, std::string_view what) {
  const std::optional<Entry> e = t.find(key);
  if (!e) owner.fail(fmt::format("needs `{}` ({})", key, what));
  return *e;
}

// elements = [begin, end]: the end is excluded, as in Python's range.
Place read_elements(const Entry& e) {
  const toml::array& a = e.array();
  if (a.size() != 2)
    e.fail(fmt::format("expected [begin, end] (two integers, the end excluded), got {} values", a.size()));
  const auto max = std::numeric_limits<std::int64_t>::max();
  Place p;
  p.begin = static_cast<std::uint64_t>(e.item(0).integer(0, max));
  p.end = static_cast<std::uint64_t>(e.item(1).integer(0, max));
  if (p.end <= p.begin)
    e.fail(fmt::format("[{}, {}] is empty: the end is excluded, so it must exceed the begin", p.begin, p.end));
  return p;
}

// Checks a chunk index against the buffer it names, when the rank is known.
void check_chunk(const ScheduleFile& f, const Entry& e, int chunk, int rank, BufferKind b) {
  const std::uint64_t n = blocks(f, rank, b) * static_cast<std::uint64_t>(f.chunks_per_block);
  if (n == 0)
    e.fail(fmt::format("{} does not exist ({} on {} ranks{})", buffer_name(rank, b), to_string(f.collective), f.ranks,
                       b == BufferKind::scratch ? "; give `scratch_blocks` at the top" : ""));
  if (static_cast<std::uint64_t>(chunk) >= n)
    e.fail(fmt::format("{} has chunks 0..{} ({} block{} of {} chunk{}), so there is no chunk {}", buffer_name(rank, b),
                       n - 1, n / static_cast<std::uint64_t>(f.chunks_per_block),
                       n / static_cast<std::uint64_t>(f.chunks_per_block) == 1 ? "" : "s", f.chunks_per_block,
                       f.chunks_per_block == 1 ? "" : "s", chunk));
}

// One side of a transfer: its own key (src_chunk) or else the shared one (chunk).
// `rank` < 0: checked per rank when built.
Place read_place(const ScheduleFile& f, const Table& t, const Entry& owner, std::string_view side, int rank,
                 BufferKind b, bool whole_by_default) {
  std::optional<Entry> chunk = t.find(fmt::format("{}_chunk", side)),
                       elements = t.find(fmt::format("{}_elements", side));
  if (!chunk && !elements) chunk = t.find("chunk"), elements = t.find("elements");
  if (chunk && elements) elements->fail(fmt::format("give {} or {}, not both", chunk->path(), elements->path()));
  if (elements) {
    if (!f.count) elements->fail("element ranges fit one count only: fix it with `count = ...` at the top of the file");
    return read_elements(*elements);
  }
  if (!chunk) {
    if (whole_by_default) return Place{-1, 0, 0, true};
    owner.fail(fmt::format("needs `chunk` (or `{}_chunk`, or `elements`): which data moves", side));
  }
  Place p;
  p.chunk = chunk->int32(0, kMaxChunkIndex);
  if (rank >= 0) check_chunk(f, *chunk, p.chunk, rank, b);
  return p;
}

BufferKind read_buffer(const Table& t, std::string_view key, BufferKind fallback) {
  const std::optional<Entry> e = t.find(key);
  return e ? toml_fields::enum_value(*e, kAllBufferKinds, "buffer") : fallback;
}

// A reduce_copy's operand: the receiver's own data, by default the destination's place in
// its input. Keys that only a reduce_copy has are refused on other actions.
void read_operand(const ScheduleFile& f, const Table& t, ScheduleFile::Transfer& x) {
  if (x.action != Action::reduce_copy) {
    for (const char* key : {"operand_buffer", "operand_chunk", "operand_elements", "operand_rank"})
      if (auto e = t.find(key))
        e->fail(fmt::format("only a reduce_copy has an operand (this transfer's action is {})", to_string(x.action)));
    return;
  }
  if (auto e = t.find("operand_rank"); e && e->int32(0, f.ranks - 1) != x.dst)
    e->fail(fmt::format("the operand is the receiver's own data: it must be on rank {} (dst), where the sum is written",
                        x.dst));
  x.operand_buffer = read_buffer(t, "operand_buffer", BufferKind::input);
  const std::optional<Entry> chunk = t.find("operand_chunk"), elements = t.find("operand_elements");
  if (chunk && elements) elements->fail(fmt::format("give {} or {}, not both", chunk->path(), elements->path()));
  if (elements) {
    if (!f.count) elements->fail("element ranges fit one count only: fix it with `count = ...` at the top of the file");
    x.with = read_elements(*elements);
  } else if (chunk) {
    x.with.chunk = chunk->int32(0, kMaxChunkIndex);
    check_chunk(f, *chunk, x.with.chunk, x.dst, x.operand_buffer);
  } else {
    x.with = x.to;  // the same place, in the operand's buffer
  }
}

ScheduleFile::Transfer read_transfer(const ScheduleFile& f, const Entry& item) {
  const Table t = Table::of(item, format_name());
  t.only_keys({"src", "dst", "chunk", "src_chunk", "dst_chunk", "elements", "src_elements", "dst_elements",
               "src_buffer", "dst_buffer", "action", "channel", "operand_buffer", "operand_chunk", "operand_elements",
               "operand_rank"});
  ScheduleFile::Transfer x;
  x.at = position(item);
  x.key = item.path();
  x.src = required(t, item, "src", "the rank that sends").int32(0, f.ranks - 1);
  x.dst = required(t, item, "dst", "the rank that receives").int32(0, f.ranks - 1);
  x.src_buffer = read_buffer(t, "src_buffer", BufferKind::output);
  x.dst_buffer = read_buffer(t, "dst_buffer", BufferKind::output);
  if (auto e = t.find("action")) x.action = toml_fields::enum_value(*e, kActions, "action");
  if (auto e = t.find("channel")) {
    if (f.channels == 1) e->fail("the file has one channel (0); give `channels = N` at the top to use more");
    x.channel = e->int32(0, f.channels - 1);
  }
  x.from = read_place(f, t, item, "src", x.src, x.src_buffer, false);
  x.to = read_place(f, t, item, "dst", x.dst, x.dst_buffer, false);
  read_operand(f, t, x);
  return x;
}

// "copy input to output", "fill output", "fill scratch".
ScheduleFile::PreOp read_pre_shorthand(const Entry& e) {
  const std::string text = e.string();
  ScheduleFile::PreOp op;
  op.at = position(e);
  op.key = e.path();
  op.to.whole = true;
  if (text == "copy input to output") return op;
  if (text == "fill output" || text == "fill scratch") {
    op.kind = ScheduleFile::PreKind::fill;
    op.dst_buffer = text == "fill output" ? BufferKind::output : BufferKind::scratch;
    return op;
  }
  e.fail(
      fmt::format("unknown pre-operation '{}' (use \"copy input to output\", \"fill output\", \"fill scratch\", "
                  "or a table such as {{ action = \"copy\", rank = 0, src_buffer = \"input\", dst_buffer = "
                  "\"scratch\" }})",
                  text));
}

ScheduleFile::PreOp read_pre_table(const ScheduleFile& f, const Entry& item) {
  const Table t = Table::of(item, format_name());
  t.only_keys({"action", "rank", "src_buffer", "dst_buffer", "chunk", "src_chunk", "dst_chunk", "elements",
               "src_elements", "dst_elements"});
  ScheduleFile::PreOp op;
  op.at = position(item);
  op.key = item.path();
  const std::string action = required(t, item, "action", "\"copy\" or \"fill\"").string();
  if (action != "copy" && action != "fill")
    t.find("action")->fail(fmt::format("unknown pre-operation action '{}' (use copy or fill)", action));
  op.kind = action == "copy" ? ScheduleFile::PreKind::copy : ScheduleFile::PreKind::fill;
  if (auto e = t.find("rank")) op.rank = e->int32(0, f.ranks - 1);
  op.src_buffer = read_buffer(t, "src_buffer", BufferKind::input);
  op.dst_buffer = read_buffer(t, "dst_buffer", BufferKind::output);
  if (op.kind == ScheduleFile::PreKind::copy) op.from = read_place(f, t, item, "src", op.rank, op.src_buffer, true);
  op.to = read_place(f, t, item, "dst", op.rank, op.dst_buffer, true);
  return op;
}

void read_pre(const Entry& e, ScheduleFile& f) {
  const toml::array& items = e.array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Entry item = e.item(i);
    f.pre.push_back(item.node().is_string() ? read_pre_shorthand(item) : read_pre_table(f, item));
  }
}

void read_steps(const Entry& e, ScheduleFile& f) {
  const toml::array& items = e.array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Entry item = e.item(i);
    const Table t = Table::of(item, format_name());
    t.only_keys({"label", "transfers"});
    ScheduleFile::Step step;
    step.at = position(item);
    if (auto l = t.find("label")) step.label = l->string();
    if (auto list = t.find("transfers")) {
      const toml::array& transfers = list->array();
      for (std::size_t j = 0; j < transfers.size(); ++j) step.transfers.push_back(read_transfer(f, list->item(j)));
    }
    f.steps.push_back(std::move(step));
  }
}

void read_format(const Table& top, const std::string& source) {
  const std::optional<Entry> format = top.find("schedule_format");
  if (!format)
    throw InputError(
        fmt::format("{}:1:1: key 'schedule_format' is missing: a schedule file starts with "
                    "`schedule_format = {}`",
                    source, kScheduleFormatVersion));
  const std::int64_t v = format->integer(0, std::numeric_limits<std::int64_t>::max());
  if (v != kScheduleFormatVersion)
    format->fail(
        fmt::format("schedule format {} is not supported (this build reads format {})", v, kScheduleFormatVersion));
}

// collective, ranks, root, count, chunks_per_block, scratch_blocks.
void read_header(const Table& top, const Entry& whole, ScheduleFile& f) {
  const Entry collective = required(top, whole, "collective", "e.g. \"all_reduce\"");
  f.collective = toml_fields::enum_value(collective, kAllCollectives, "collective");
  if (!hand_writable(f.collective))
    collective.fail(fmt::format("{} cannot be written by hand yet (all collectives but barrier and send_recv can)",
                                to_string(f.collective)));
  f.collective_at = position(collective);
  const Entry ranks = required(top, whole, "ranks", "how many ranks the schedule is written for");
  f.ranks = ranks.int32(1, kMaxRanks);
  f.ranks_at = position(ranks);
  if (auto e = top.find("root")) {
    if (!collective_has_root(f.collective)) e->fail(fmt::format("{} has no root", to_string(f.collective)));
    f.root = e->int32(0, f.ranks - 1);
    f.root_at = position(*e);
  }
  if (auto e = top.find("count")) f.count = read_count(*e), f.count_at = position(*e);
  if (auto e = top.find("chunks_per_block")) f.chunks_per_block = e->int32(1, 1024);
  if (auto e = top.find("scratch_blocks")) f.scratch_blocks = e->int32(0, 1024);
  if (auto e = top.find("channels")) f.channels = e->int32(1, kMaxChannels);
}

}  // namespace

std::string ScheduleFile::label(std::size_t i) const {
  return steps[i].label.empty() ? fmt::format("step {}", i + 1) : steps[i].label;
}

std::string ScheduleFile::describe(const Place& p) const {
  if (p.whole) return "the whole buffer";
  if (p.chunk >= 0 && p.chunks > 1) return fmt::format("chunks {}..{}", p.chunk, p.chunk + p.chunks - 1);
  if (p.chunk >= 0) return fmt::format("chunk {}", p.chunk);
  return fmt::format("elements [{},{})", p.begin, p.end);
}

ScheduleFile parse_schedule_file(std::string_view text, const std::string& source) {
  const toml::table doc = toml_fields::parse_toml(text, source);
  const Table top(source, "", doc, format_name());
  top.only_keys({"schedule_format", "title", "description", "collective", "ranks", "root", "count", "chunks_per_block",
                 "scratch_blocks", "channels", "pre", "step"});
  read_format(top, source);
  ScheduleFile f;
  f.source = source;
  const Entry whole(source, "(top level)", doc);
  if (auto e = top.find("title")) f.title = e->string();
  if (auto e = top.find("description")) f.description = e->string();
  read_header(top, whole, f);
  if (auto e = top.find("pre")) read_pre(*e, f);
  if (auto e = top.find("step")) read_steps(*e, f);
  return f;
}

namespace {
// The file as it is now, to tell a cached parse from a stale one: "" when it cannot be read
// (the loader then says why).
std::string file_identity(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "";
  const auto time = std::filesystem::last_write_time(path, ec);
  if (ec) return "";
  return fmt::format("{}\n{}\n{}", std::filesystem::absolute(path).string(), size, time.time_since_epoch().count());
}
// Refused before parsing: a parse and check take about 25 bytes of memory per byte of TOML
// and seconds per ten megabytes (a 24 MiB file of 400 000 transfers: 4 s and 0.6 GB for validate).
void check_schedule_file_size(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxScheduleFileBytes)
    throw InputError(fmt::format("{}: the schedule file has {}; schedule files are limited to {} (about a million "
                                 "transfers): run it on fewer ranks or elements, or use a built-in algorithm (collsim list)",
                                 path.string(), format_bytes(static_cast<double>(size)),
                                 format_bytes(static_cast<double>(kMaxScheduleFileBytes))));
}
}  // namespace

ScheduleFile load_schedule_file(const std::filesystem::path& path) {
  // `validate` and `run` ask for one file several times (the spec it fixes, its warnings,
  // the build): the last file parsed is kept, so a big one is parsed once, not four times.
  static std::mutex mutex;
  static std::string last_identity;
  static std::shared_ptr<const ScheduleFile> last;
  const std::string identity = file_identity(path);
  {
    const std::lock_guard lock(mutex);
    if (!identity.empty() && identity == last_identity) return *last;
  }
  check_schedule_file_size(path);
  auto parsed = std::make_shared<const ScheduleFile>(is_msccl_path(path) ? load_msccl_file(path)
                                                     : parse_schedule_file(read_text_file(path, "schedule file"), path.string()));
  const std::lock_guard lock(mutex);
  last_identity = identity;
  last = parsed;
  return *parsed;
}

bool is_schedule_text(std::string_view text) {
  // A look at the top-level keys, not a parse (validate asks it of every file, and a
  // schedule of a million transfers takes seconds to parse): a line that starts with the
  // key schedule_format before the first [table], outside multi-line strings. Text that
  // only looks like it gets the schedule loader's precise messages.
  bool in_string = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    for (const std::string_view quotes : {std::string_view(R"(""")"), std::string_view("'''")})
      for (std::size_t q = line.find(quotes); q != std::string_view::npos; q = line.find(quotes, q + 3)) in_string = !in_string;
    if (in_string) continue;
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (line.starts_with('[')) return false;
    if (!line.starts_with("schedule_format")) continue;
    line.remove_prefix(std::string_view("schedule_format").size());
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (line.starts_with('=')) return true;
  }
  return false;
}

namespace {

// Turns places into regions at one count and feeds the builder.
class Resolver {
 public:
  Resolver(const ScheduleFile& f, const CollectiveSpec& spec) : f_(f), spec_(spec) {
    shape_.spec = spec;
    shape_.algorithm = kCustomAlgorithm;
    shape_.total_ranks = spec.ranks;
    shape_.scratch_count.assign(static_cast<std::size_t>(spec.ranks), scratch_elements());
  }
  std::uint64_t scratch_elements() const { return static_cast<std::uint64_t>(f_.scratch_blocks) * spec_.count; }
  std::uint64_t elements(int rank, BufferKind b) const { return shape_.buffer_elements(rank, b); }
  bool same_storage(const Region& a, const Region& b) const {
    return spec_.in_place && storage_of(shape_, a) == storage_of(shape_, b);
  }

  // `key`/`at` name the place in messages.
  Region region(int rank, BufferKind b, const Place& p, const std::string& key, ScheduleFile::Position at) const {
    const std::uint64_t size = elements(rank, b);
    if (p.whole) return {rank, b, 0, size};
    if (p.chunk >= 0) {
      const std::uint64_t c = static_cast<std::uint64_t>(p.chunk), last = c + static_cast<std::uint64_t>(p.chunks) - 1;
      if (last >= blocks(f_, rank, b) * static_cast<std::uint64_t>(f_.chunks_per_block))
        fail(at, key, fmt::format("{} has no chunk {}", buffer_name(rank, b), last));
      // Consecutive chunks are contiguous: a block's last part ends where the next block begins.
      const Block first = chunk_block(c), end = chunk_block(last);
      return {rank, b, first.offset, end.end() - first.offset};
    }
    if (p.end > size)
      fail(at, key,
           fmt::format("elements [{},{}) lie outside {}, which has {} elements", p.begin, p.end, buffer_name(rank, b),
                       size));
    return {rank, b, p.begin, p.end - p.begin};
  }
  // Chunk c's elements at this count: part c % C of block c / C.
  Block chunk_block(std::uint64_t c) const {
    const std::uint64_t per = static_cast<std::uint64_t>(f_.chunks_per_block);
    return sub_block({c / per * spec_.count, spec_.count}, per, c % per);
  }
  // The chunk that holds `offset` (for colouring transfers given as element ranges).
  int chunk_at(std::uint64_t offset) const {
    if (spec_.count == 0) return 0;
    const std::uint64_t per = static_cast<std::uint64_t>(f_.chunks_per_block), block = offset / spec_.count;
    for (std::uint64_t part = 0; part < per; ++part)
      if (sub_block({block * spec_.count, spec_.count}, per, part).end() > offset)
        return static_cast<int>(block * per + part);
    return static_cast<int>(block * per);
  }
  [[noreturn]] void fail(ScheduleFile::Position at, const std::string& key, std::string_view problem) const {
    throw InputError(fmt::format("{}:{}:{}: key '{}': {}", f_.source, at.line, at.column, key, problem));
  }
  void same_length(const Region& from, const Region& to, const std::string& key, ScheduleFile::Position at) const {
    if (from.count != to.count)
      fail(at, key,
           fmt::format("at count {} the source holds {} elements but the destination {}: a transfer writes as many "
                       "elements as it reads (use chunks at the same position in their blocks, or a count that "
                       "chunks_per_block = {} divides)",
                       spec_.count, from.count, to.count, f_.chunks_per_block));
  }

 private:
  const ScheduleFile& f_;
  CollectiveSpec spec_;
  Schedule shape_;  // only for buffer sizes
};

void require_match(const ScheduleFile& f, ScheduleFile::Position at, std::string_view key, std::string_view file_value,
                   std::string_view run_value, std::string_view flag) {
  if (file_value == run_value) return;
  throw InputError(
      fmt::format("{}:{}:{}: key '{}': the schedule is written for {} = {}, but the run asks for {} ({} or the "
                  "scenario's `{}`)",
                  f.source, at.line, at.column, key, key, file_value, run_value, flag, key));
}

void check_spec(const ScheduleFile& f, const CollectiveSpec& spec) {
  require_match(f, f.collective_at, "collective", to_string(f.collective), to_string(spec.collective), "--collective");
  require_match(f, f.ranks_at, "ranks", std::to_string(f.ranks), std::to_string(spec.ranks), "--ranks");
  if (collective_has_root(f.collective))
    require_match(f, f.root_at, "root", std::to_string(f.root), std::to_string(spec.root), "--root");
  if (f.count) require_match(f, f.count_at, "count", std::to_string(*f.count), std::to_string(spec.count), "--count");
}

// "copy input to output": each rank's own input goes where its result keeps it.
void add_own_data(ScheduleBuilder& b, const Resolver& res, const CollectiveSpec& spec, int rank) {
  const std::uint64_t in = res.elements(rank, BufferKind::input), out = res.elements(rank, BufferKind::output);
  if (in == 0 || out == 0) return;
  const std::uint64_t k = spec.count, own = static_cast<std::uint64_t>(rank) * k;
  if (spec.collective == Collective::all_to_all)
    b.pre_copy({rank, BufferKind::input, own, k}, {rank, BufferKind::output, own, k});
  else if (in == out)
    b.pre_copy({rank, BufferKind::input, 0, in}, {rank, BufferKind::output, 0, out});
  else if (out > in)  // all_gather, gather's root: the input is block `rank` of the result
    b.pre_copy({rank, BufferKind::input, 0, in}, {rank, BufferKind::output, own, in});
  else  // reduce_scatter, scatter's root: block `rank` of the input is the rank's share
    b.pre_copy({rank, BufferKind::input, own, out}, {rank, BufferKind::output, 0, out});
}

void add_pre(ScheduleBuilder& b, const Resolver& res, const ScheduleFile& f, const CollectiveSpec& spec,
             const ScheduleFile::PreOp& op) {
  for (int r = 0; r < spec.ranks; ++r) {
    if (op.rank >= 0 && r != op.rank) continue;
    if (op.kind == ScheduleFile::PreKind::own_data) {
      add_own_data(b, res, spec, r);
      continue;
    }
    // "Every rank": only the ranks that have the buffers (a broadcast's root alone has an input).
    const bool every = op.rank < 0;
    if (every && (blocks(f, r, op.dst_buffer) == 0 ||
                  (op.kind == ScheduleFile::PreKind::copy && blocks(f, r, op.src_buffer) == 0)))
      continue;
    const Region to = res.region(r, op.dst_buffer, op.to, op.key, op.at);
    if (op.kind == ScheduleFile::PreKind::fill) {
      b.pre_fill_identity(to);
      continue;
    }
    const Region from = res.region(r, op.src_buffer, op.from, op.key, op.at);
    res.same_length(from, to, op.key, op.at);
    b.pre_copy(from, to);
  }
}

}  // namespace

BuiltSchedule build_from_file(const ScheduleFile& f, const CollectiveSpec& spec) {
  check_spec(f, spec);
  const Resolver res(f, spec);
  ScheduleBuilder b(spec, std::string(kCustomAlgorithm));
  b.set_channels(f.channels);
  for (int r = 0; r < spec.ranks; ++r) b.set_scratch(r, res.scratch_elements());
  for (const ScheduleFile::PreOp& op : f.pre) add_pre(b, res, f, spec, op);
  std::vector<std::size_t> file_step, file_transfer;
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    b.step(f.label(i));
    for (std::size_t j = 0; j < f.steps[i].transfers.size(); ++j) {
      const ScheduleFile::Transfer& t = f.steps[i].transfers[j];
      const Region from = res.region(t.src, t.src_buffer, t.from, t.key, t.at);
      const Region to = res.region(t.dst, t.dst_buffer, t.to, t.key, t.at);
      res.same_length(from, to, t.key, t.at);
      const int chunk = t.to.chunk >= 0 ? t.to.chunk : t.from.chunk >= 0 ? t.from.chunk : res.chunk_at(to.offset);
      // Left out as the builder leaves them out (so that origins stay in step): nothing to
      // move (chunks empty at a small count), or, in place, a copy onto itself.
      if (from.count == 0 || (t.action == Action::copy && res.same_storage(from, to))) continue;
      if (t.action == Action::reduce_copy) {
        const Region with = res.region(t.dst, t.operand_buffer, t.with, t.key, t.at);
        res.same_length(with, to, t.key, t.at);
        b.reduce_copy(chunk, from, with, to, t.channel);
      } else {
        b.add(t.action, chunk, from, to, t.channel);
      }
      file_step.push_back(i);
      file_transfer.push_back(j);
    }
  }
  BuiltSchedule built{std::move(b).finish(), {}, {}};
  built.file_step = std::move(file_step);
  built.file_transfer = std::move(file_transfer);
  return built;
}

RunRequest adopt_schedule_spec(RunRequest r, const GivenFields& given) {
  if (r.algorithm != kCustomAlgorithm || r.options.schedule_file.empty()) return r;
  const ScheduleFile f = load_schedule_file(r.options.schedule_file);
  if (!given(RequestField::collective)) r.spec.collective = f.collective;
  if (!given(RequestField::ranks)) r.spec.ranks = f.ranks;
  if (!given(RequestField::root)) r.spec.root = f.root;
  if (f.count && !given(RequestField::count)) r.spec.count = *f.count;
  if (f.in_place && !given(RequestField::in_place)) r.spec.in_place = *f.in_place;
  return r;
}

WrongScheduleError::WrongScheduleError(std::string explanation, std::string checker)
    : ScheduleError(fmt::format("{}\n  (the checker's words: {})", explanation, checker)),
      explanation_(std::move(explanation)),
      checker_(std::move(checker)) {}

CheckedCustomSchedule build_checked_custom_schedule(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  if (options.schedule_file.empty())
    throw InputError(
        "--algorithm custom needs --schedule FILE (in a scenario: `schedule = \"FILE\"` under [collective]): "
        "the schedule you wrote by hand");
  const ScheduleFile f = load_schedule_file(options.schedule_file);
  BuiltSchedule built = build_from_file(f, spec);
  CheckedCustomSchedule out;
  std::optional<CheckError> error;
  auto history = std::make_shared<const BufferHistory>(
      BufferHistory::record_until_error(built.schedule, error, &out.report));
  if (error) throw WrongScheduleError(explain_schedule_error(f, built, *error, *history), error->what());
  out.schedule = std::move(built.schedule);
  out.history = std::move(history);
  return out;
}

}  // namespace collsim
