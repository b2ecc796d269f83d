// What a scenario runs (docs/scenario-format.md). Format 1: one [collective]. Format 2, a
// lesson: one [collective] with captions, or [[phase]]s (collectives and compute) and a
// [training] pattern that generates more; and [[question]]s. Either way the result is
// Scenario::phases in program order, which the command line's flags may then change
// (apply_scenario_overrides). scenario.cpp reads the rest: format, title, [run], [topology].
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/schedule/algorithm.h"
#include "sim/lesson/captions.h"
#include "sim/lesson/text.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/lesson/scenario.h"
#include "sim/core/toml_fields.h"

namespace collsim {
namespace {

using toml_fields::Entry;
using toml_fields::enum_value;
using toml_fields::Table;

constexpr int kMaxInt = std::numeric_limits<int>::max();
constexpr int kDefaultRanks = 4;

// --- collectives ------------------------------------------------------------------------

// inputs = [2048, 1]: rank r holds the r-th value (the last for every further rank), each
// a number the collective's dtype holds (given_inputs_problem).
std::vector<double> read_inputs(const Entry& e, DataType dtype) {
  std::vector<double> values;
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    const Entry item = e.item(i);
    const toml::node& n = item.node();
    if (n.is_integer())
      values.push_back(static_cast<double>(n.as_integer()->get()));
    else if (n.is_floating_point())
      values.push_back(n.as_floating_point()->get());
    else
      item.fail("expected a number");
  }
  if (values.empty()) e.fail("needs at least one value (rank 0's); leave the key out for the seeded inputs");
  const std::string problem = given_inputs_problem(dtype, values);
  if (!problem.empty()) e.fail(problem);
  return values;
}

// The keys of a collective: [collective] and a collective [[phase]] (which takes the
// lesson's ranks and has no `ranks` of its own). The caller checks the table's keys and
// sets r.spec.ranks first when the table has none.
void read_collective(const Table& t, RunRequest& r) {
  if (auto e = t.find("collective")) r.spec.collective = enum_value(*e, kAllCollectives, "collective");
  if (auto e = t.find("ranks")) r.spec.ranks = e->int32(1, kMaxRanks);
  if (auto e = t.find("count")) r.spec.count = e->count();
  if (auto e = t.find("dtype")) r.spec.dtype = enum_value(*e, kAllDataTypes, "data type");
  if (auto e = t.find("op")) r.spec.op = enum_value(*e, kAllReduceOps, "reduce op");
  if (auto e = t.find("inputs")) r.input_values = read_inputs(*e, r.spec.dtype);
  if (auto e = t.find("slices")) r.options.slices = e->int32(0, 1024);  // 0: the algorithm's default
  if (auto e = t.find("colocated")) r.options.colocated = e->boolean();
  if (auto e = t.find("ranks_per_node")) r.options.ranks_per_node = e->int32(0, kMaxRanks);
  // Checks that involve two keys, made against the file's own values (the command line
  // may still override either; build_schedule checks the final request).
  if (auto e = t.find("algorithm")) {
    r.algorithm = e->string();
    if (r.algorithm != kCustomAlgorithm && !find_algorithm(r.spec.collective, r.algorithm))
      e->fail(fmt::format("no algorithm '{}' for {} (see `collsim list`)", r.algorithm, to_string(r.spec.collective)));
  } else {
    r.algorithm = algorithm_or_default(r.spec.collective, "");  // none named: the collective's default
  }
  if (auto e = t.find("root")) r.spec.root = e->int32(0, r.spec.ranks - 1);
  if (auto e = t.find("servers")) r.options.servers = e->int32(1, r.spec.ranks);
  if (auto e = t.find("in_place")) {
    r.spec.in_place = e->boolean();
    if (r.spec.in_place && !collective_supports_in_place(r.spec.collective))
      e->fail(fmt::format("{} has no in-place form", to_string(r.spec.collective)));
  }
}

// algorithm = "custom": `schedule` names the schedule written by hand, relative to the
// scenario file. That file fixes the collective, ranks, root (and count, when it gives
// one): the keys of the table that are absent take its values, those present must agree.
void read_custom(const Table& t, const std::string& file, RunRequest& r) {
  const std::optional<Entry> schedule = t.find("schedule");
  if (r.algorithm != kCustomAlgorithm) {
    if (schedule) schedule->fail("is used only with algorithm = \"custom\" (a schedule written by hand)");
    return;
  }
  if (!schedule)
    t.find("algorithm")
        ->fail(
            "algorithm = \"custom\" needs `schedule = \"FILE\"`: the schedule written by hand, relative "
            "to this scenario file");
  r.options.schedule_file = (std::filesystem::path(file).parent_path() / schedule->string()).string();
  const ScheduleFile f = load_schedule_file(r.options.schedule_file);
  const auto agree = [&](std::string_view key, const std::string& here, const std::string& there) {
    if (const std::optional<Entry> e = t.find(key); e && here != there)
      e->fail(fmt::format("the schedule {} is written for {} = {}", r.options.schedule_file, key, there));
  };
  agree("collective", std::string(to_string(r.spec.collective)), std::string(to_string(f.collective)));
  agree("ranks", std::to_string(r.spec.ranks), std::to_string(f.ranks));
  if (collective_has_root(f.collective)) agree("root", std::to_string(r.spec.root), std::to_string(f.root));
  if (f.count) agree("count", std::to_string(r.spec.count), std::to_string(*f.count));
  // The file's own keys win over the schedule's, as given flags do.
  GivenFields in_file;
  for (const auto& [key, field] : {std::pair{"collective", RequestField::collective}, {"ranks", RequestField::ranks},
                                   {"root", RequestField::root}, {"count", RequestField::count},
                                   {"in_place", RequestField::in_place}})
    if (t.find(key)) in_file.add(field);
  r = adopt_schedule_spec(r, in_file);
}

// A lesson fixes its ranks for every phase, so a schedule written by hand for other ranks
// (read_custom adopted them) is an error at its `schedule` key.
void require_ranks(const Table& t, const RunRequest& r, int ranks) {
  if (r.spec.ranks == ranks) return;
  t.find("schedule")
      ->fail(fmt::format("the schedule {} is written for ranks = {}, but the lesson has ranks = {} (the "
                         "top-level `ranks`)",
                         r.options.schedule_file, r.spec.ranks, ranks));
}

std::string default_name(const RunRequest& r) {
  return fmt::format("{} ({})", to_string(r.spec.collective), r.algorithm);
}

// The ranks a collective's schedule has, with the algorithm's extra ranks (a parameter
// server's servers unless colocated: AlgorithmInfo::extra_ranks).
int schedule_ranks(const RunRequest& r) { return schedule_total_ranks(r.spec, r.algorithm, r.options); }

Phase collective_phase(const RunRequest& r, std::string origin) {
  Phase p;
  p.kind = PhaseKind::collective;
  p.request = r;
  p.request.algorithm = algorithm_or_default(r.spec.collective, r.algorithm);
  p.name = default_name(p.request);
  p.origin = std::move(origin);
  return p;
}

std::string position(const std::string& file, const Table& t) {
  return fmt::format("{}:{}:{}", file, t.line(), t.column());
}
std::string position(const Entry& e) { return fmt::format("{}:{}:{}", e.file(), e.line(), e.column()); }

// --- the keys phases share ----------------------------------------------------------------

// A text template (text.h): its syntax is checked here, its names once the run is known
// (check_lesson_text), since they depend on the algorithm's stages and the questions.
std::string caption_text(const Entry& e) {
  std::string text = e.string();
  parse_text(text, e.where());
  return text;
}

// stage_captions = [{ at = "reduce_scatter.last", text = "..." }, ...]
std::vector<Phase::StageCaption> stage_captions(const Entry& e) {
  std::vector<Phase::StageCaption> out;
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    const Entry item = e.item(i);
    const Table t = Table::of(item, "a stage caption");
    t.only_keys({"at", "text"});
    const std::optional<Entry> at = t.find("at"), text = t.find("text");
    if (!at) item.fail("needs `at`: the steps it captions (\"every\", \"first\", \"last\", a stage such as \"reduce_scatter\", or \"reduce_scatter.last\")");
    if (!text) item.fail("needs `text`: the caption");
    Phase::StageCaption c{at->string(), caption_text(*text), item.where()};
    check_stage_selector(c.at, at->where());
    out.push_back(std::move(c));
  }
  return out;
}

void read_captions(const Table& t, Phase& p) {
  if (auto e = t.find("caption")) {
    p.caption = caption_text(*e);
    p.caption_where = e->where();
  }
  if (auto e = t.find("step_caption")) {
    p.step_caption = caption_text(*e);
    p.step_caption_where = e->where();
  }
  if (auto e = t.find("step_captions"))
    for (std::size_t i = 0; i < e->array().size(); ++i) {
      p.step_captions.push_back(caption_text(e->item(i)));
      p.step_captions_where.push_back(e->item(i).where());
    }
  if (auto e = t.find("stage_captions")) p.stage_captions = stage_captions(*e);
}

// reads = ["grad.layer4", "params"]: names of per-rank regions.
std::vector<std::string> region_names(const Entry& e) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    const Entry item = e.item(i);
    names.push_back(item.string());
    if (names.back().empty()) item.fail("a region needs a name, such as \"grad.layer4\"");
  }
  return names;
}

// wait_for = ["backward of layer 4"]: earlier phases by name, one phase each.
std::vector<int> earlier_phases(const Entry& e, const std::vector<Phase>& earlier) {
  std::vector<int> found;
  for (const std::string& name : region_names(e)) {
    int index = -1;
    for (std::size_t k = 0; k < earlier.size(); ++k) {
      if (earlier[k].name != name) continue;
      if (index >= 0)
        e.fail(fmt::format("phases {} and {} are both named '{}': give the phase you mean a name of its own", index + 1,
                           k + 1, name));
      index = static_cast<int>(k);
    }
    if (index < 0)
      e.fail(fmt::format("no earlier phase is named '{}' (a phase can wait only for a phase before it)", name));
    found.push_back(index);
  }
  return found;
}

// allocates = { "activations.mb1" = "4MiB", "param.fc" = 2052000 }: bytes per name.
std::vector<std::pair<std::string, double>> allocations(const Entry& e) {
  if (!e.node().is_table()) e.wrong_type("a table of names and sizes, such as { \"activations\" = \"4MiB\" }");
  std::vector<std::pair<std::string, double>> out;
  for (auto&& [key, value] : *e.node().as_table()) {
    const Entry size(e.file(), fmt::format("{}.{}", e.path(), key.str()), value);
    out.emplace_back(std::string(key.str()), static_cast<double>(size.count()));
  }
  return out;
}

// The stream a phase runs on: any non-empty name (lesson.h, Phase::stream).
std::string stream_name(const Entry& e) {
  std::string name = e.string();
  if (name.empty())
    e.fail(fmt::format("a stream needs a name, such as \"{}\", \"{}\" or \"{}\" (the legacy default stream)",
                       kComputeStream, kCommStream, kDefaultStream));
  return name;
}

// group = "v3": the phases of a group come one after the other, so that text and questions
// name its span ({v3.duration_us}, phases = "v3").
std::string group_name(const Entry& e, const std::vector<Phase>& earlier) {
  std::string name = e.string();
  if (name.empty()) e.fail("a group needs a name, such as \"v1\" (leave `group` out for none)");
  const bool continues = !earlier.empty() && earlier.back().group == name;
  const bool used = std::any_of(earlier.begin(), earlier.end(), [&](const Phase& q) { return q.group == name; });
  if (used && !continues)
    e.fail(fmt::format("group \"{}\" was used before, by phases that this one does not follow: a group's phases come "
                       "one after the other",
                       name));
  return name;
}

// name, group, reads, writes, streams, waits, memory and the captions: what every kind of
// [[phase]] may have.
void read_phase_common(const Entry& item, const Table& t, Phase& p, const std::vector<Phase>& earlier) {
  if (auto e = t.find("name")) {
    p.name = e->string();
    if (p.name.empty()) e->fail("must not be empty (leave `name` out for the default name)");
  }
  if (auto e = t.find("group")) p.group = group_name(*e, earlier);
  if (auto e = t.find("reads")) p.reads = region_names(*e);
  if (auto e = t.find("writes")) p.writes = region_names(*e);
  if (auto e = t.find("stream")) p.stream = stream_name(*e);
  if (auto e = t.find("wait_for")) p.wait_for = earlier_phases(*e, earlier);
  if (auto e = t.find("host_wait_for")) p.host_wait_for = earlier_phases(*e, earlier);
  if (auto e = t.find("synchronize")) p.synchronize = e->boolean();
  if (auto e = t.find("allocates")) p.allocates = allocations(*e);
  if (auto e = t.find("frees")) p.frees = region_names(*e);
  read_captions(t, p);
  p.origin = position(item);
}

// steps = [1, 3]: steps 1..3 of the schedule (checked against its step count when the
// program is prepared: the schedule is not built here).
void read_steps(const Entry& e, Phase& p) {
  if (e.array().size() != 2)
    e.fail(
        fmt::format("expected [first, last]: two step numbers (1-based, inclusive), got {} values", e.array().size()));
  p.first_step = e.item(0).int32(1, kMaxInt);
  p.last_step = e.item(1).int32(1, kMaxInt);
  if (p.last_step < p.first_step)
    e.fail(
        fmt::format("[{}, {}] is no range of steps: the first step comes after the last", p.first_step, p.last_step));
}

// --- [[phase]] ------------------------------------------------------------------------------

// What the phases of one lesson share while they are read.
struct LessonContext {
  const std::string& file;
  RunRequest base;             // defaults, the lesson's ranks and [run]'s seed
  std::optional<Entry> ranks;  // the top-level `ranks`, when the file gives it
  const std::vector<Phase>& earlier;  // the phases read so far (wait_for names them)
};

Phase read_collective_phase(const Entry& item, const LessonContext& l) {
  const Table t = Table::of(item, "a collective [[phase]]");
  t.only_keys({"name", "group", "collective", "algorithm", "count", "dtype", "op", "inputs", "root", "in_place", "slices", "servers",
               "colocated", "ranks_per_node", "schedule", "steps", "reads", "writes", "stream", "wait_for", "host_wait_for",
               "synchronize", "allocates", "frees", "caption", "step_caption", "step_captions", "stage_captions", "clock"});
  Phase p = collective_phase(l.base, "");
  if (auto e = t.find("clock")) p.clock = clock_name(*e);
  read_collective(t, p.request);
  read_custom(t, l.file, p.request);
  require_ranks(t, p.request, l.base.spec.ranks);
  p.name = default_name(p.request);
  if (auto e = t.find("steps")) read_steps(*e, p);
  read_phase_common(item, t, p, l.earlier);
  return p;
}

// compute = 120.0 (µs on every worker rank) or [120.0, 80.0] (µs per rank; missing ranks
// are idle). The array's length is checked once the program's ranks are known.
Phase read_compute_phase(const Entry& item, const LessonContext& l, bool& every_worker) {
  const Table t = Table::of(item, "a compute [[phase]]");
  t.only_keys({"name", "group", "compute", "reads", "writes", "stream", "wait_for", "host_wait_for", "synchronize",
               "allocates", "frees", "caption"});
  Phase p;
  p.kind = PhaseKind::compute;
  p.name = "compute";
  const Entry e = *t.find("compute");
  every_worker = !e.node().is_array();
  if (every_worker) {
    if (!e.node().is_number()) e.wrong_type("a number (µs on every rank) or an array of numbers (µs per rank)");
    p.compute_us.assign(static_cast<std::size_t>(l.base.spec.ranks), e.number(false));
  } else {
    if (e.array().empty()) e.fail("an empty array computes on no rank: give µs per rank, such as [120.0, 80.0]");
    for (std::size_t i = 0; i < e.array().size(); ++i) p.compute_us.push_back(e.item(i).number(false));
  }
  read_phase_common(item, t, p, l.earlier);
  return p;
}

// [[phase]] number i+1: a collective (`collective = ...`) or compute (`compute = ...`).
Phase read_phase(const Entry& item, const LessonContext& l, bool& every_worker) {
  if (!item.node().is_table()) item.wrong_type("a table ([[phase]])");
  const Table t = Table::of(item, "a [[phase]]");
  if (auto e = t.find("ranks"))
    e->fail("a phase runs on the lesson's ranks: give `ranks` once, at the top of the file");
  const std::optional<Entry> collective = t.find("collective"), compute = t.find("compute");
  if (collective && compute)
    compute->fail("a phase is either a collective (`collective = ...`) or compute (`compute = ...`), not both");
  if (collective) return read_collective_phase(item, l);
  if (compute) return read_compute_phase(item, l, every_worker);
  item.fail("needs `collective = \"...\"` (a collective phase) or `compute = ...` (µs of compute per rank)");
}

// [[phase]] and [[question]] are counted from 1, as a teacher counts them and as a
// question's `phase = N` does: keys read "phase[2].count". f(entry) for each.
template <class F>
void each_numbered(const Table& top, std::string_view key, F&& f) {
  const std::optional<Entry> e = top.find(key);
  if (!e) return;
  if (!e->node().is_array() || e->array().empty())
    e->fail(fmt::format("expected [[{}]] tables, got {}", key,
                        e->node().is_array() ? "an empty array" : toml_fields::type_name(e->node())));
  for (std::size_t i = 0; i < e->array().size(); ++i) {
    const Entry item(e->file(), fmt::format("{}[{}]", key, i + 1), *e->array().get(i));
    if (!item.node().is_table()) item.wrong_type(fmt::format("a table ([[{}]])", key));
    f(item);
  }
}

// --- [training] ---------------------------------------------------------------------------

// name = "..." from a table of names and values; an unknown name lists the known ones.
template <class T, std::size_t N>
T named_value(const Entry& e, const std::pair<std::string_view, T> (&names)[N], std::string_view what) {
  const std::string name = e.string();
  std::string known;
  for (const auto& [n, v] : names) {
    if (n == name) return v;
    known.append(known.empty() ? "" : ", ").append(n);
  }
  e.fail(fmt::format("unknown {} '{}' (use {})", what, name, known));
}

constexpr std::pair<std::string_view, TrainingPattern> kPatterns[] = {
    {"ddp", TrainingPattern::ddp},
    {"fsdp", TrainingPattern::fsdp},
    {"parameter_server", TrainingPattern::parameter_server},
    {"pipeline", TrainingPattern::pipeline},
};

TrainingPattern read_pattern(const Entry& e) {
  const std::string name = e.string();
  for (const auto& [n, p] : kPatterns)
    if (n == name) return p;
  e.fail(fmt::format("unknown training pattern '{}' (use ddp, fsdp, parameter_server or pipeline)", name));
}

// model = "resnet34", or parameters per layer [1000, 2000] (input side first).
ModelLayers read_model(const Entry& e, int image_size) {
  if (e.node().is_string()) {
    const std::string name = e.string();
    if (name != "resnet34")
      e.fail(fmt::format("unknown model '{}' (use \"resnet34\", or an array of parameter counts per layer)", name));
    return resnet34(image_size);
  }
  if (!e.node().is_array()) e.wrong_type("a model's name (\"resnet34\") or an array of parameter counts per layer");
  if (e.array().empty()) e.fail("a model needs at least one layer: give parameters per layer, such as [1000, 2000]");
  ModelLayers m;
  m.name = "custom";
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    m.parameters.push_back(static_cast<std::uint64_t>(e.item(i).integer(1, std::numeric_limits<std::int64_t>::max())));
    m.layer_names.push_back(fmt::format("layer{}", i + 1));
  }
  return m;
}

// A key that only some patterns use is refused for the others (checked against the
// file's own `pattern`), as [topology] does for kinds.
void only_for(const std::optional<Entry>& e, TrainingPattern pattern, std::initializer_list<TrainingPattern> users,
              std::string_view which) {
  if (e && std::find(users.begin(), users.end(), pattern) == users.end())
    e->fail(fmt::format("is used only by {}", which));
}

constexpr std::pair<std::string_view, DdpPart> kDdpParts[] = {
    {"constructor", DdpPart::constructor}, {"first", DdpPart::first}, {"later", DdpPart::later}};
constexpr std::pair<std::string_view, BackwardPrefetch> kPrefetches[] = {
    {"backward_pre", BackwardPrefetch::backward_pre},
    {"backward_post", BackwardPrefetch::backward_post},
    {"none", BackwardPrefetch::none}};


// iterations = ["constructor", "first", "later"]: DDP's parts of a training run.
std::vector<DdpPart> read_parts(const Entry& e) {
  std::vector<DdpPart> parts;
  if (!e.node().is_array() || e.array().empty())
    e.wrong_type("a non-empty array of \"constructor\", \"first\" and \"later\"");
  for (std::size_t i = 0; i < e.array().size(); ++i) {
    parts.push_back(named_value(e.item(i), kDdpParts, "part"));
    if (i > 0 && parts[i] <= parts[i - 1])
      e.item(i).fail("the parts come in the order of a training run, each once: constructor, first, later");
  }
  return parts;
}

void read_ddp_keys(const Table& t, TrainingSpec& spec) {
  if (auto e = t.find("iterations")) spec.parts = read_parts(*e);
  if (auto e = t.find("bucket_mb")) spec.bucket_mb = e->number(true);
  if (auto e = t.find("first_bucket_mb")) spec.first_bucket_mb = e->number(true);
  if (auto e = t.find("broadcast_buffers")) spec.broadcast_buffers = e->boolean();
  if (auto e = t.find("broadcast_bucket_mb")) spec.broadcast_bucket_mb = e->number(true);
}

void read_fsdp_options(const Table& t, FsdpOptions& o) {
  if (auto e = t.find("backward_prefetch")) o.backward_prefetch = named_value(*e, kPrefetches, "backward_prefetch");
  if (auto e = t.find("forward_prefetch")) o.forward_prefetch = e->boolean();
  if (auto e = t.find("limit_all_gathers")) o.limit_all_gathers = e->boolean();
}

// The options of one step, or compare = [{ name = ..., backward_prefetch = ... }, ...]:
// one step per entry, each key defaulting to PyTorch's default.
void read_fsdp_keys(const Table& t, TrainingSpec& spec) {
  read_fsdp_options(t, spec.fsdp.front());
  const std::optional<Entry> compare = t.find("compare");
  if (!compare) return;
  for (std::string_view key : {"backward_prefetch", "forward_prefetch", "limit_all_gathers"})
    if (auto e = t.find(key)) e->fail("give the options in each entry of `compare` instead");
  if (!compare->node().is_array() || compare->array().empty())
    compare->wrong_type("an array of tables, such as [{ name = \"no prefetch\", backward_prefetch = \"none\" }]");
  spec.fsdp.clear();
  for (std::size_t i = 0; i < compare->array().size(); ++i) {
    const Entry item = compare->item(i);
    const Table entry = Table::of(item, "an entry of training.compare");
    entry.only_keys({"name", "backward_prefetch", "forward_prefetch", "limit_all_gathers"});
    FsdpOptions& o = spec.fsdp.emplace_back();
    const std::optional<Entry> name = entry.find("name");
    if (!name) item.fail("needs a `name`: it goes before each phase of this step");
    o.name = name->string();
    if (o.name.empty()) name->fail("must not be empty");
    read_fsdp_options(entry, o);
  }
}

// Compute: device_tflops with batch, or forward_us/backward_us split by flops or parameters.
void read_compute_keys(const Table& t, TrainingSpec& spec) {
  const std::optional<Entry> rate = t.find("device_tflops"), batch = t.find("batch");
  if (rate) spec.device_tflops = rate->number(true);
  if (batch && !rate) batch->fail("is used only with device_tflops (the samples each rank computes at that rate)");
  if (rate && !batch) rate->fail("needs `batch`: the samples each rank computes per iteration");
  if (batch) spec.batch = batch->int32(1, 1 << 20);
  for (std::string_view key : {"forward_us", "backward_us", "split"})
    if (auto e = t.find(key); e && rate)
      e->fail(fmt::format("does not go with device_tflops ({}:{}:{}), which computes each layer's time from its "
                          "multiply-adds",
                          rate->file(), rate->line(), rate->column()));
  if (auto e = t.find("forward_us")) spec.forward_us = e->number(false);
  if (auto e = t.find("backward_us")) spec.backward_us = e->number(false);
  spec.split_by_flops = !spec.model.macs.empty();  // the model's multiply-adds where it knows them
  if (auto e = t.find("split")) {
    const std::string split = e->string();
    if (split != "flops" && split != "parameters") e->fail(fmt::format("unknown split '{}' (use flops or parameters)", split));
    if (split == "flops" && spec.model.macs.empty())
      e->fail("the model has no multiply-adds per layer (a custom model): use split = \"parameters\"");
    spec.split_by_flops = split == "flops";
  }
}

// --- [training] pattern = "pipeline" (pipeline.cpp) ------------------------------------------

constexpr std::string_view kPipelineKeys[] = {"schedule", "p2p", "stages", "microbatches", "activation_count",
                                              "activation_bytes"};

// schedule = "gpipe" or ["gpipe", "1f1b"], p2p = "isend" or ["isend", "send"]: one value or several.
template <class E, std::size_t N>
std::vector<E> one_or_more(const Entry& e, const std::pair<std::string_view, E> (&names)[N], std::string_view what) {
  const auto one = [&](const Entry& item) { return named_value(item, names, what); };
  if (!e.node().is_array()) return {one(e)};
  if (e.array().empty()) e.fail(fmt::format("names no {}: give one, or an array of several", what));
  std::vector<E> out;
  for (std::size_t i = 0; i < e.array().size(); ++i) out.push_back(one(e.item(i)));
  return out;
}

constexpr std::pair<std::string_view, PipelineSchedule> kPipelineSchedules[] = {
    {"gpipe", PipelineSchedule::gpipe}, {"1f1b", PipelineSchedule::ofob}};
constexpr std::pair<std::string_view, PipelineP2p> kPipelineP2p[] = {{"isend", PipelineP2p::isend},
                                                                      {"send", PipelineP2p::send}};

// The pipeline's keys; a model does not apply (stages are timed, not layers).
TrainingSpec read_pipeline(const Table& t, TrainingSpec spec, int ranks) {
  if (auto e = t.find("model")) e->fail("is not used by the pipeline pattern: give forward_us and backward_us per stage");
  if (auto e = t.find("servers")) e->fail("is used only by the parameter_server pattern, or by ddp");
  if (auto e = t.find("dtype")) spec.dtype = enum_value(*e, kAllDataTypes, "data type");
  if (auto e = t.find("schedule")) spec.schedules = one_or_more(*e, kPipelineSchedules, "schedule");
  if (auto e = t.find("p2p")) spec.p2p = one_or_more(*e, kPipelineP2p, "p2p");
  if (auto e = t.find("stages")) {
    spec.stages = e->int32(1, kMaxRanks);
    if (spec.stages != ranks)
      e->fail(fmt::format("the pipeline has a stage per rank, but the lesson has ranks = {}: give them equal", ranks));
  }
  if (auto e = t.find("microbatches")) spec.microbatches = e->int32(1, 1024);
  if (auto e = t.find("activation_count")) {
    spec.activation_count = e->count();
    if (spec.activation_count == 0) e->fail("a stage sends at least 1 element per microbatch");
  }
  if (auto e = t.find("activation_bytes")) spec.activation_bytes = static_cast<double>(e->count());
  for (const auto& [key, us] : {std::pair{"forward_us", &spec.forward_us}, std::pair{"backward_us", &spec.backward_us}}) {
    const std::optional<Entry> e = t.find(key);
    if (!e) throw InputError(fmt::format("{}: key 'training.{}' is missing: one stage's µs for one microbatch", spec.origin, key));
    *us = e->number(true);
  }
  return spec;
}

TrainingSpec read_training(const Table& t, const std::string& file, int ranks) {
  t.only_keys({"pattern", "model", "image_size", "dtype", "algorithm", "iterations", "bucket_mb", "first_bucket_mb",
               "broadcast_buffers", "broadcast_bucket_mb", "backward_prefetch", "forward_prefetch", "limit_all_gathers", "compare",
               "device_tflops", "batch", "split", "forward_us", "backward_us", "servers", "update_us", "schedule", "p2p",
               "stages", "microbatches", "activation_count", "activation_bytes"});
  TrainingSpec spec;
  spec.origin = position(file, t);
  if (auto e = t.find("pattern")) spec.pattern = read_pattern(*e);
  const TrainingPattern p = spec.pattern;
  only_for(t.find("algorithm"), p, {TrainingPattern::ddp, TrainingPattern::fsdp}, "the ddp and fsdp patterns");
  for (std::string_view key : {"iterations", "bucket_mb", "first_bucket_mb", "broadcast_buffers", "broadcast_bucket_mb"})
    only_for(t.find(key), p, {TrainingPattern::ddp}, "the ddp pattern");
  for (std::string_view key : {"backward_prefetch", "forward_prefetch", "limit_all_gathers", "compare"})
    only_for(t.find(key), p, {TrainingPattern::fsdp}, "the fsdp pattern");
  only_for(t.find("update_us"), p, {TrainingPattern::parameter_server}, "the parameter_server pattern");
  for (std::string_view key : kPipelineKeys) only_for(t.find(key), p, {TrainingPattern::pipeline}, "the pipeline pattern");
  if (p == TrainingPattern::pipeline) return read_pipeline(t, std::move(spec), ranks);

  const std::optional<Entry> model = t.find("model");
  if (!model)
    throw InputError(
        fmt::format("{}: key 'training.model' is missing: give \"resnet34\" or parameters per layer, such "
                    "as [1000, 2000]",
                    spec.origin));
  int image_size = 224;
  if (auto e = t.find("image_size")) {
    if (!model->node().is_string()) e->fail("is used only with model = \"resnet34\" (a custom model has no image)");
    image_size = e->int32(32, 4096);
  }
  spec.model = read_model(*model, image_size);
  if (auto e = t.find("dtype")) spec.dtype = enum_value(*e, kAllDataTypes, "data type");
  if (auto e = t.find("algorithm")) {
    // ddp: the all-reduce's. fsdp: the all-gather's or the reduce-scatter's, whichever has
    // it (the other uses ring; training.cpp).
    spec.algorithm = e->string();
    const bool ok = p == TrainingPattern::ddp ? find_algorithm(Collective::all_reduce, spec.algorithm) != nullptr
                                              : find_algorithm(Collective::all_gather, spec.algorithm) ||
                                                    find_algorithm(Collective::reduce_scatter, spec.algorithm);
    if (!ok)
      e->fail(fmt::format("no algorithm '{}' for {} (see `collsim list`)", spec.algorithm,
                          p == TrainingPattern::ddp ? "all_reduce" : "all_gather or reduce_scatter"));
  }
  // Servers: the parameter_server pattern's, or those of ddp's parameter_server all-reduce.
  if (auto e = t.find("servers"); e && p != TrainingPattern::parameter_server &&
                                  !(p == TrainingPattern::ddp && algorithm_knobs(Collective::all_reduce, spec.algorithm).servers))
    e->fail("is used only by the parameter_server pattern, or by ddp with algorithm = \"parameter_server\"");
  read_ddp_keys(t, spec);
  read_fsdp_keys(t, spec);
  read_compute_keys(t, spec);
  if (auto e = t.find("servers")) spec.servers = e->int32(1, ranks);
  if (auto e = t.find("update_us")) spec.update_us = e->number(false);
  return spec;
}

// --- [[question]] ---------------------------------------------------------------------------

constexpr std::pair<std::string_view, Metric> kMetrics[] = {
    {"bytes_sent", Metric::bytes_sent},
    {"bytes_received", Metric::bytes_received},
    {"transfers", Metric::transfers},
    {"steps", Metric::steps},
    {"time_us", Metric::time_us},
    {"duration_us", Metric::duration_us},
    {"busbw_gbps", Metric::busbw_gbps},
    {"contributions", Metric::contributions},
    {"peak_memory_bytes", Metric::peak_memory_bytes},
    {"latency_us", Metric::latency_us},
    {"bandwidth_us", Metric::bandwidth_us},
    {"idle_fraction", Metric::idle_fraction},
    {"value", Metric::value},
    {"exact_value", Metric::exact_value},
    {"holders", Metric::holders},
};

Metric read_metric(const Entry& e) {
  const std::string name = e.string();
  std::string known;
  for (const auto& [n, m] : kMetrics) {
    if (n == name) return m;
    known.append(known.empty() ? "" : " ").append(n);
  }
  e.fail(fmt::format("unknown metric '{}' (use {})", name, known));
}

// phases = [first, last]: a span of phases, for the metrics of time and memory.
void read_span(const Entry& e, const Table& t, Question& q, int phases) {
  if (!is_timing(q.metric) && !is_span(q.metric))
    e.fail("is used only with metric = \"time_us\", \"duration_us\", \"peak_memory_bytes\" or \"idle_fraction\"");
  if (auto p = t.find("phase")) p->fail("give either `phase` or `phases = [first, last]`, not both");
  if (e.node().is_string()) {  // a group of phases a pattern generated: "gpipe_isend"
    q.span_group = e.string();
    check_stage_selector(q.span_group, e.where());
    return;
  }
  if (!e.node().is_array() || e.array().size() != 2) e.wrong_type("[first, last]: two phase numbers, or a group's name");
  q.phase = e.item(0).int32(1, std::max(phases, 1));
  q.last_phase = e.item(1).int32(1, std::max(phases, 1));
  if (q.last_phase < q.phase) e.fail(fmt::format("[{}, {}]: the first phase comes after the last", q.phase, q.last_phase));
}

// rank = 3, or rank = "ranks-1": a number, or an expression the run evaluates (text.h).
int number_or_expression(const Entry& e, int lo, int hi, std::string& expression) {
  if (!e.node().is_string()) return e.int32(lo, hi);
  expression = e.string();
  parse_text(fmt::format("{{{}}}", expression), e.where());
  return 0;
}

Question read_question(const Entry& item, const Scenario& s, int total_ranks) {
  const Table t = Table::of(item, "a [[question]]");
  t.only_keys({"text", "metric", "phase", "phases", "rank", "step", "chunk", "element", "answer"});
  Question q;
  q.origin = position(item);
  const std::optional<Entry> text = t.find("text"), metric = t.find("metric");
  if (!text) item.fail("needs a `text`: the question the student reads");
  if (!metric) item.fail("needs a `metric`: what the answer is computed from (bytes_sent, time_us, ...)");
  q.metric = read_metric(*metric);
  const int phases = static_cast<int>(s.phases.size());
  const bool whole_program = is_span(q.metric);
  const std::optional<Entry> span = t.find("phases");
  if (span) {
    read_span(*span, t, q, phases);
  } else if (whole_program) {
    q.phase = 0;
    if (auto e = t.find("phase"))
      e->fail(fmt::format("{} is a figure of the whole program, or of a span `phases = [first, last]`: leave "
                          "`phase` out",
                          metric->string()));
  } else if (auto e = t.find("phase"); e && e->node().is_string()) {
    q.phase = number_or_expression(*e, 0, phases, q.phase_expr);
  } else if (auto e = t.find("phase")) {
    q.phase = e->int32(0, phases);
    if (q.phase == 0 && !is_timing(q.metric))
      e->fail("phase = 0 is the whole program, which has only metric = \"time_us\" or \"duration_us\"");
  } else if (phases == 0) {
    item.fail("needs a `phase`: the lesson has no phases");
  }
  if (q.phase > 0 && !span && q.phase_expr.empty() && s.phases[static_cast<std::size_t>(q.phase - 1)].kind == PhaseKind::compute &&
      !is_timing(q.metric))
    metric->fail(fmt::format("phase {} ('{}') is a compute phase: it has only metric = \"time_us\" or \"duration_us\"", q.phase,
                             s.phases[static_cast<std::size_t>(q.phase - 1)].name));
  // A key the metric does not use would be silently ignored: the answer would not be what
  // the question's author thinks it asks.
  const bool per_rank = q.metric == Metric::bytes_sent || q.metric == Metric::bytes_received ||
                        q.metric == Metric::contributions || q.metric == Metric::peak_memory_bytes ||
                        q.metric == Metric::idle_fraction || is_element_value(q.metric);
  const bool per_step = (per_rank && !whole_program && !span && q.metric != Metric::exact_value) ||
                        q.metric == Metric::transfers || q.metric == Metric::holders;
  if (auto e = t.find("rank")) {
    if (!per_rank)
      e->fail("is used only with metric = \"bytes_sent\", \"bytes_received\", \"contributions\", \"peak_memory_bytes\", "
              "\"idle_fraction\", \"value\" or \"exact_value\"");
    q.rank = number_or_expression(*e, 0, total_ranks - 1, q.rank_expr);
  }
  if (auto e = t.find("step")) {
    if (!per_step)
      e->fail("is used only with metric = \"bytes_sent\", \"bytes_received\", \"transfers\", \"contributions\", "
              "\"holders\" or \"value\"");
    q.step = number_or_expression(*e, 0, kMaxInt, q.step_expr);
  }
  if (auto e = t.find("element")) {
    if (!is_element_value(q.metric)) e->fail("is used only with metric = \"value\" or \"exact_value\"");
    q.element = static_cast<std::uint64_t>(e->integer(0, std::numeric_limits<std::int64_t>::max()));
  }
  if (auto e = t.find("chunk")) {
    if (q.metric != Metric::contributions) e->fail("is used only with metric = \"contributions\"");
    q.chunk = number_or_expression(*e, 0, kMaxInt, q.chunk_expr);
  }
  q.text = caption_text(*text);
  if (auto e = t.find("answer")) q.answer = caption_text(*e);
  else q.answer = "{value}";
  return q;
}

// --- the phases as the program runs them ----------------------------------------------------

// The phases the file wrote itself. Without [training] that is all of them, also for a
// Scenario built in code that leaves file_phases at 0.
std::size_t own_phases(const Scenario& s) { return s.training ? s.file_phases : s.phases.size(); }

// The program's ranks: the lesson's, or more where a schedule or a generated compute phase
// has extra ranks (parameter servers). The file's own compute arrays do not count: they
// are checked against it.
int program_ranks(const Scenario& s) {
  int total = s.ranks;
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    const Phase& p = s.phases[i];
    if (p.kind == PhaseKind::collective)
      total = std::max(total, schedule_ranks(p.request));
    else if (i >= own_phases(s))
      total = std::max(total, static_cast<int>(p.compute_us.size()));
  }
  return total;
}

void generate_training_phases(Scenario& s) {
  if (!s.training) return;
  s.phases.resize(s.file_phases);
  std::vector<Phase> generated = training_phases(*s.training, s.ranks);
  // A pattern's waits count its own phases; after the file's, they move up by as many.
  for (Phase& p : generated)
    for (std::vector<int>* waits : {&p.wait_for, &p.host_wait_for})
      for (int& k : *waits) k += static_cast<int>(s.file_phases);
  s.phases.insert(s.phases.end(), std::make_move_iterator(generated.begin()), std::make_move_iterator(generated.end()));
}

// Once the phases are complete: every collective gets the seed (s.request's: [run] or
// --seed), every compute phase a figure per rank of the program, and s.request becomes
// the first collective's (the single-run front ends' request).
void settle_phases(Scenario& s, int total_ranks) {
  const std::uint64_t seed = s.request.seed;
  std::optional<RunRequest> first;
  for (Phase& p : s.phases) {
    if (p.kind == PhaseKind::compute) {
      p.compute_us.resize(static_cast<std::size_t>(total_ranks), 0.0);
      continue;
    }
    p.request.seed = seed;
    if (!first) first = p.request;
  }
  if (first) {
    s.request = *first;
  } else {
    s.request.spec.ranks = s.ranks;
    s.request.algorithm = algorithm_or_default(s.request.spec.collective, s.request.algorithm);
  }
}

// --- reading -----------------------------------------------------------------------------------

void read_format1(const Table& top, Scenario& s) {
  std::string origin = s.source + ":1:1";  // no [collective]: all defaults, from the top of the file
  if (auto t = top.table("collective")) {
    t->only_keys({"collective", "algorithm", "ranks", "count", "dtype", "op", "inputs", "root", "in_place", "slices", "servers",
                  "colocated", "ranks_per_node", "schedule"});
    read_collective(*t, s.request);
    read_custom(*t, s.source, s.request);
    origin = position(s.source, *t);
  }
  s.request.algorithm = algorithm_or_default(s.request.spec.collective, s.request.algorithm);  // no [collective]
  s.ranks = s.request.spec.ranks;
  s.phases = {collective_phase(s.request, origin)};
  s.file_phases = 1;
  s.compute_every_worker = {false};
}

// Format 2's [collective]: format 1's keys and captions; `ranks` here or at the top level.
Phase read_lesson_collective(const Table& t, const LessonContext& l) {
  t.only_keys({"collective", "algorithm", "ranks", "count", "dtype", "op", "inputs", "root", "in_place", "slices",
               "servers", "colocated", "ranks_per_node", "schedule", "caption", "step_caption", "step_captions",
               "stage_captions"});
  if (auto e = t.find("ranks"); e && l.ranks)
    e->fail(fmt::format("ranks is given at the top level too ({}:{}:{}): give it once", e->file(), l.ranks->line(),
                        l.ranks->column()));
  Phase p = collective_phase(l.base, position(l.file, t));
  read_collective(t, p.request);
  read_custom(t, l.file, p.request);
  if (l.ranks) require_ranks(t, p.request, l.base.spec.ranks);
  p.name = default_name(p.request);
  read_captions(t, p);
  return p;
}

void read_format2(const Table& top, Scenario& s) {
  const std::optional<Entry> ranks = top.find("ranks");
  s.ranks = ranks ? ranks->int32(1, s.rank_limit()) : kDefaultRanks;  // [run] is read before
  s.request.spec.ranks = s.ranks;
  const LessonContext l{s.source, s.request, ranks, s.phases};
  if (auto e = top.find("caption")) {
    s.caption = caption_text(*e);
    s.caption_where = e->where();
  }

  const std::optional<Table> collective = top.table("collective");
  const std::optional<Entry> phases = top.find("phase"), training = top.find("training");
  if (collective && (phases || training))
    (phases ? *phases : *training)
        .fail(
            "does not go with [collective]: a lesson is one [collective], or [[phase]]s and [training] (make the "
            "collective a [[phase]])");
  if (!collective && !phases && !training)
    top.find("format")->fail("a format 2 scenario needs a [collective], [[phase]]s or [training]: what it runs");

  // The file's own phases; compute arrays are checked once the program's ranks are known.
  std::vector<std::optional<Entry>> compute_arrays;
  if (collective) {
    s.phases.push_back(read_lesson_collective(*collective, l));
    s.ranks = s.phases.back().request.spec.ranks;  // [collective] may give them, or its schedule
    s.compute_every_worker.push_back(false);
    compute_arrays.emplace_back();
  }
  each_numbered(top, "phase", [&](const Entry& item) {
    bool every_worker = false;
    s.phases.push_back(read_phase(item, l, every_worker));
    s.compute_every_worker.push_back(every_worker);
    const bool array = s.phases.back().kind == PhaseKind::compute && !every_worker;
    compute_arrays.push_back(array ? Table::of(item, "a [[phase]]").find("compute") : std::nullopt);
  });
  s.file_phases = s.phases.size();
  if (auto t = top.table("training")) s.training = read_training(*t, s.source, s.ranks);

  generate_training_phases(s);
  const int total = program_ranks(s);
  for (const std::optional<Entry>& e : compute_arrays)
    if (e && e->array().size() > static_cast<std::size_t>(total))
      e->fail(fmt::format("has {} entries, but the program has {} ranks (0..{})", e->array().size(), total, total - 1));
  settle_phases(s, total);
  each_numbered(top, "question", [&](const Entry& item) { s.questions.push_back(read_question(item, s, total)); });
}

// --- overrides ---------------------------------------------------------------------------------

// The fields that change one collective, and the key a lesson's phase has instead.
constexpr std::pair<RequestField, std::string_view> kCollectiveFields[] = {
    {RequestField::collective, "collective"},
    {RequestField::algorithm, "algorithm"},
    {RequestField::count, "count"},
    {RequestField::dtype, "dtype"},
    {RequestField::op, "op"},
    {RequestField::inputs, "inputs"},
    {RequestField::root, "root"},
    {RequestField::in_place, "in_place"},
    {RequestField::slices, "slices"},
    {RequestField::servers, "servers"},
    {RequestField::colocated, "colocated"},
    {RequestField::ranks_per_node, "ranks_per_node"},
    {RequestField::schedule, "schedule"},
};

std::string phase_label(const Scenario& s, std::size_t i) {
  return fmt::format("phase[{}] '{}'", i + 1, s.phases[i].name);
}

// --ranks N within the lesson's limit (Scenario::rank_limit).
void check_lesson_rank_count(const Scenario& s, int n) {
  if (n >= 1 && n <= s.rank_limit()) return;
  throw InputError(fmt::format("--ranks {}: must be between 1 and {}{}", n, s.rank_limit(),
                               s.model_only ? ""
                                            : fmt::format(" ({} for a lesson that runs on the model alone)",
                                                          kMaxModelLessonRanks)));
}

// --ranks N on a lesson: every phase runs on N ranks, and what the file fixed for its own
// ranks (a root, servers, a schedule written by hand, compute figures per rank) must still
// fit. [training] generates its phases again.
void set_lesson_ranks(Scenario& s, int n) {
  const std::string flag = fmt::format("--ranks {}", n);
  const auto refuse = [&](const std::string& why) { throw InputError(fmt::format("{}: {}", flag, why)); };
  check_lesson_rank_count(s, n);
  const std::size_t own = own_phases(s);
  for (std::size_t i = 0; i < own; ++i) {
    Phase& p = s.phases[i];
    RunRequest& r = p.request;
    if (p.kind == PhaseKind::compute) {
      if (i < s.compute_every_worker.size() && s.compute_every_worker[i] && !p.compute_us.empty())
        p.compute_us.assign(static_cast<std::size_t>(n), p.compute_us.at(0));
      continue;
    }
    if (r.algorithm == kCustomAlgorithm)
      refuse(fmt::format("{} runs the schedule {}, written for ranks = {}", phase_label(s, i), r.options.schedule_file,
                         r.spec.ranks));
    if (collective_has_root(r.spec.collective) && r.spec.root >= n)
      refuse(fmt::format("{} has root = {} (the ranks are 0..{})", phase_label(s, i), r.spec.root, n - 1));
    if (algorithm_knobs(r.spec.collective, r.algorithm).servers && r.options.servers > n)
      refuse(fmt::format("{} has servers = {} (at most the ranks)", phase_label(s, i), r.options.servers));
    r.spec.ranks = n;
  }
  s.ranks = n;
  try {
    generate_training_phases(s);
  } catch (const InputError& e) {
    refuse(e.what());  // a pattern that cannot run on n ranks: fsdp on 1, more servers than workers
  }
  const int total = program_ranks(s);
  for (std::size_t i = 0; i < own; ++i) {
    const std::vector<double>& us = s.phases[i].compute_us;
    for (std::size_t k = static_cast<std::size_t>(total); k < us.size(); ++k)
      if (us[k] != 0)
        refuse(
            fmt::format("{} computes on rank {} (compute[{}] = {} µs), which the program does not have (ranks 0..{})",
                        phase_label(s, i), k, k, us[k], total - 1));
  }
  settle_phases(s, total);
}


}  // namespace

int Scenario::rank_limit() const { return model_only ? kMaxModelLessonRanks : kMaxRanks; }

bool Scenario::single_collective() const {
  return phases.size() == 1 && phases[0].kind == PhaseKind::collective && phases[0].first_step == 0 && !training;
}

void read_scenario_program(const Table& top, Scenario& s) {
  if (s.format == 1)
    read_format1(top, s);
  else
    read_format2(top, s);
}

namespace {
// ranks_fixed: the lesson's text is true at its own rank count only.
// ranks_allowed: the expression over `ranks` must hold for the new count.
bool ranks_allowed(const Scenario& s, int n) {
  if (s.ranks_allowed.empty()) return true;
  const TextScope scope = [n](std::string_view name) -> std::optional<TextValue> {
    if (name == "ranks") return TextValue::of(n);
    return std::nullopt;
  };
  return render_text(fmt::format("{{{} ? 1 : 0}}", s.ranks_allowed), scope, s.ranks_allowed_where, "ranks") == "1";
}

void refuse_fixed_ranks(const Scenario& s, const RunRequest& from_flags, const GivenFields& given) {
  if (given(RequestField::ranks) && from_flags.spec.ranks != s.ranks && !ranks_allowed(s, from_flags.spec.ranks))
    throw InputError(fmt::format("--ranks {}: {} runs only at rank counts where {} (ranks_allowed, {}): its phases or "
                                 "figures need them",
                                 from_flags.spec.ranks, s.source, s.ranks_allowed, s.ranks_allowed_where));
  if (!s.ranks_fixed || !given(RequestField::ranks) || from_flags.spec.ranks == s.ranks) return;
  throw InputError(fmt::format("--ranks {}: {} is written for {} ranks only (ranks_fixed){}: its text states facts of {} "
                               "ranks that would be false at {}; copy the file and edit it to try another rank count",
                               from_flags.spec.ranks, s.source, s.ranks,
                               s.ranks_fixed_why.empty() ? "" : fmt::format(", because {}", s.ranks_fixed_why), s.ranks,
                               from_flags.spec.ranks));
}

}  // namespace

void read_collective_keys(const Table& t, RunRequest& r) { read_collective(t, r); }

namespace {
Scenario overridden(const Scenario& s, const RunRequest& from_flags, const TopologyConfig& topology_flags,
                    const GivenFields& given);
}  // namespace

Scenario apply_scenario_overrides(const Scenario& s, const RunRequest& from_flags, const TopologyConfig& topology_flags,
                                  const GivenFields& given) {
  Scenario out = overridden(s, from_flags, topology_flags, given);
  record_applied(out.applied, from_flags, topology_flags, given);
  render_title(out);
  return out;
}

namespace {
Scenario overridden(const Scenario& s, const RunRequest& from_flags, const TopologyConfig& topology_flags,
                    const GivenFields& given) {
  // A rank count of 0 or less says so first, before any question or phase trips over it.
  if (given(RequestField::ranks) && from_flags.spec.ranks < 1) check_rank_count(from_flags.spec.ranks, kMaxRanks);
  if (given(RequestField::ranks)) check_lesson_rank_count(s, from_flags.spec.ranks);
  refuse_fixed_ranks(s, from_flags, given);
  if (given(RequestField::latency_rule) && !s.text_holds_under(topology_flags.latency_rule))
    throw InputError(fmt::format("--latency-rule {}: {} explains its times under other latency rules ({}); its text "
                                 "would not be true under this one: copy the file, or run the collective alone",
                                 to_string(topology_flags.latency_rule), s.source, s.latency_rules_origin()));
  Scenario out = s;
  out.topology = apply_topology_overrides(s.topology, topology_flags, given);
  refuse_fixed_topology(s, out.topology, true);
  if (s.single_collective()) {
    out.request = apply_flag_overrides(s.request, from_flags, given);
    Phase& p = out.phases[0];
    if (p.name == default_name(p.request)) p.name = default_name(out.request);  // a name the file gave stays
    p.request = out.request;
    out.ranks = out.request.spec.ranks;
    return out;
  }
  for (const auto& [field, key] : kCollectiveFields)
    if (given(field))
      throw InputError(fmt::format("{} changes one collective; {} has {} phase{}: edit the phase's `{}` in the file",
                                   field_flag(field), s.source, s.phases.size(), s.phases.size() == 1 ? "" : "s", key));
  if (given(RequestField::seed)) out.request.seed = from_flags.seed;
  if (given(RequestField::ranks) && from_flags.spec.ranks != s.ranks) {
    set_lesson_ranks(out, from_flags.spec.ranks);
  } else {
    settle_phases(out, program_ranks(out));
  }
  return out;
}
}  // namespace

Scenario rerun_scenario(const Scenario& s, const RunRequest& edited, const TopologyConfig& topology) {
  // The editor holds a whole run: for a single collective, every field of it (the schedule
  // file stays the scenario's, as the algorithm "custom" keeps it); for several phases, the
  // ranks and the seed. The topology is the edited one as a whole, assigned below.
  using F = RequestField;
  const GivenFields given = s.single_collective()
                                ? GivenFields{F::collective, F::algorithm, F::ranks,   F::count,     F::dtype,
                                              F::op,         F::root,      F::in_place, F::slices,   F::servers,
                                              F::colocated,  F::ranks_per_node, F::seed}
                                : GivenFields{F::ranks, F::seed};
  const bool single = s.single_collective();
  Scenario base = s;
  base.questions.clear();  // answered afterwards, each on its own (Lesson::answers)
  Scenario out = apply_scenario_overrides(base, edited, s.topology, given);
  refuse_fixed_topology(s, topology, false);
  out.topology = topology;
  out.questions = s.questions;
  if (single && (edited.spec.collective != s.request.spec.collective || edited.algorithm != s.request.algorithm)) {
    Phase& phase = out.phases[0];  // written for the file's collective and algorithm
    phase.caption.clear();
    phase.step_caption.clear();
    phase.step_captions.clear();
  }
  return out;
}

}  // namespace collsim
