#include "app/flags/run_flags.h"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/types.h"
#include "sim/exec/reference.h"
#include "sim/model/topology.h"
#include "sim/run/custom_schedule.h"
#include "sim/schedule/algorithm.h"
#include "sim/core/nearest_name.h"

namespace collsim::flags {
namespace {

// --inputs 2048,1: the numbers, each one the dtype holds (given_inputs_problem).
std::vector<double> parse_inputs_flag(const std::string& text, DataType dtype) {
  std::vector<double> values;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw InputError(fmt::format("--inputs: '{}' is not a number (give comma-separated numbers, e.g. 2048,1)", item));
    values.push_back(v);
    begin = end + 1;
  }
  const std::string problem = given_inputs_problem(dtype, values);
  if (!problem.empty()) throw InputError(fmt::format("--inputs: {}", problem));
  return values;
}

// The options `cmd` gained since it had `before` are listed under `group` in --help (an
// empty group: left under the command's own heading).
void list_under(CLI::App& cmd, std::size_t before, const std::string& group) {
  if (group.empty()) return;
  const std::vector<CLI::Option*> options = cmd.get_options();
  for (std::size_t i = before; i < options.size(); ++i) options[i]->group(group);
}

}  // namespace

void add_spec_flags(CLI::App& cmd, SpecFlags& f, const std::string& group) {
  const std::size_t before = cmd.get_options().size();
  cmd.add_option("-c,--collective", f.collective, "all_reduce, broadcast, reduce, all_gather, ... (see `collsim list`)")
      ->capture_default_str();
  cmd.add_option("-a,--algorithm", f.algorithm,
                 "ring, parameter_server, direct, ... (see `collsim list`); custom: your own, with --schedule FILE; "
                 "default: the collective's default (all_reduce: ring, broadcast: binomial_tree, ...)");
  cmd.add_option("-n,--ranks", f.ranks, "number of ranks (parameter_server: workers)")->capture_default_str();
  cmd.add_option("--count", f.count, "elements per block (K in the buffer table); suffixes K, M, G = powers of 1024")
      ->capture_default_str();
  cmd.add_option("-t,--dtype", f.dtype, "f32 f64 f16 bf16 i32 i64")->capture_default_str();
  cmd.add_option("-o,--op", f.op, "sum prod min max avg")->capture_default_str();
  cmd.add_option("--inputs", f.inputs,
                 "given inputs instead of the seeded ones: comma-separated numbers, rank r holds the r-th at every "
                 "element (the last for every further rank), e.g. 2048,1");
  cmd.add_option("--root", f.root, "root rank of rooted collectives")->capture_default_str();
  cmd.add_option("--slices", f.slices,
                 "pipelined algorithms (ring, chain, ...): slices per chunk; 0: the algorithm's default")
      ->capture_default_str();
  cmd.add_option("--servers", f.servers, "parameter_server: number of servers S (1..ranks)")->capture_default_str();
  cmd.add_flag("--colocated", f.colocated, "parameter_server: servers run on workers 0..S-1 instead of extra ranks");
  cmd.add_option("--ranks-per-node", f.ranks_per_node,
                 "hierarchical: G ranks per node, --ranks a multiple of G; 0: the smallest divisor of N >= sqrt(N)")
      ->capture_default_str();
  cmd.add_flag("--in-place", f.in_place,
               "input and output share one buffer, as in NCCL "
               "(all_reduce, broadcast, reduce, all_gather, reduce_scatter)");
  cmd.add_option("--schedule", f.schedule,
                 "a schedule you wrote by hand (TOML, docs/scenario-format.md) or an MSCCL algorithm file (.xml, "
                 "docs/msccl.md): runs the algorithm custom, with the file's collective, ranks and root unless given");
  list_under(cmd, before, group);
}

Collective collective_flag(const std::string& text) {
  const auto collective = parse_collective(text);
  if (!collective) {
    std::vector<std::string> names;
    for (const Collective c : kAllCollectives) names.emplace_back(to_string(c));
    throw InputError(fmt::format("--collective: unknown collective '{}' (see `collsim list`){}", text, did_you_mean(text, names)));
  }
  return *collective;
}

DataType dtype_flag(const std::string& text) {
  const auto dtype = parse_data_type(text);
  if (!dtype) throw InputError(fmt::format("--dtype: unknown data type '{}' (use f32 f64 f16 bf16 i32 i64){}", text,
                                            did_you_mean(text, words_of("f32 f64 f16 bf16 i32 i64"))));
  return *dtype;
}

ReduceOp op_flag(const std::string& text) {
  const auto op = parse_reduce_op(text);
  if (!op) throw InputError(fmt::format("--op: unknown reduce op '{}' (use sum prod min max avg){}", text,
                                       did_you_mean(text, words_of("sum prod min max avg"))));
  return *op;
}

RunRequest to_request(const SpecFlags& f, const FlagGiven& given) {
  if (given("--schedule") && given("--algorithm") && f.algorithm != kCustomAlgorithm)
    throw InputError(fmt::format("--schedule runs a schedule written by hand: leave out --algorithm {} (or give "
                                 "--algorithm custom)",
                                 f.algorithm));
  RunRequest r;
  const Collective collective = collective_flag(f.collective);
  const DataType dtype = dtype_flag(f.dtype);
  const ReduceOp op = op_flag(f.op);
  const auto count = parse_count(f.count);
  if (!count)
    throw InputError(fmt::format("--count: '{}' is not a count (a non-negative integer, optionally with K, M or G)", f.count));
  r.spec = {collective, f.ranks, *count, dtype, op, f.root, f.in_place};
  r.algorithm = f.schedule.empty() ? std::string(algorithm_or_default(collective, f.algorithm))
                                   : std::string(kCustomAlgorithm);
  r.options = {f.slices, f.servers, f.colocated, f.ranks_per_node, f.schedule};
  if (given("--inputs")) r.input_values = parse_inputs_flag(f.inputs, dtype);
  return r;
}

FlagGiven flags_given(const CLI::App* cmd) {
  return [cmd](std::string_view flag) {
    const CLI::Option* o = cmd->get_option_no_throw(std::string(flag));
    return o && o->count() > 0;
  };
}

void add_model_flags(CLI::App& cmd, ModelFlags& f, const std::string& group) {
  const std::size_t before = cmd.get_options().size();
  cmd.add_option("--topology", f.topology, "what the timing model predicts on: " + topology_kind_names())
      ->capture_default_str();
  cmd.add_option("--link", f.link,
                 "preset of the rank links: " + link_preset_names() + " (default: the topology's; `collsim list` "
                 "gives their figures and classes)");
  cmd.add_option("--bandwidth", f.bandwidth, "GB/s (1e9 B/s) per direction of every rank link, instead of the preset's");
  cmd.add_option("--latency", f.latency, "µs of every rank link, instead of the preset's");
  cmd.add_option("--uplink", f.uplink,
                 "preset of pcie_tree's switch uplinks, two_level's network links, star's server links");
  cmd.add_option("--uplink-bandwidth", f.uplink_bandwidth, "GB/s of every uplink, instead of the preset's");
  cmd.add_option("--uplink-latency", f.uplink_latency, "µs of every uplink, instead of the preset's");
  cmd.add_option("--group-size", f.group_size,
                 "GPUs per PCIe switch (pcie_tree, default 4) or per node (two_level, default 8)");
  cmd.add_option("--nic", f.nic, "two_level: one network link per node or per gpu")->capture_default_str();
  cmd.add_option("--reduce-rate", f.reduce_rate, "GB/s at which a rank reduces (γ = 1/rate; default 1117)");
  cmd.add_option("--copy-rate", f.copy_rate, "GB/s at which a rank copies locally (δ = 1/rate; default 1675)");
  cmd.add_option("--link-override", f.link_overrides,
                 "NAME=GBPS[,US] or NAME=PRESET for one link, e.g. rank3=25 (repeatable)");
  cmd.add_option("--protocol", f.protocol,
                 "NCCL's protocol: none (the links' own latencies, which are NCCL's LL figures, and full bandwidth), "
                 "simple, ll, ll128 (NCCL's per-hop latency for each link's class, its share of the bandwidth and "
                 "its base latency), or auto (the fastest of them for this collective and size)")
      ->capture_default_str();
  cmd.add_option("--latency-rule", f.latency_rule,
                 "what a link's latency does to a message: delay (α is delay: the link carries the next message's "
                 "bytes meanwhile, up to 8 in flight per link, as NCCL's chunks) or message (α per message, "
                 "holding the link: the textbooks' closed forms)")
      ->capture_default_str();
  cmd.add_option("--arrange", f.arrange,
                 "how the app, page and storyboard place the ranks: algorithm (the algorithm's own shape: a ring as "
                 "a circle in its order, trees by depth), topology (the links and switches it runs on) or both (the "
                 "algorithm's shape with the topology's switches and wires drawn inside it: a ring around its switch)")
      ->capture_default_str();
  cmd.add_option("--topology-file", f.topology_file,
                 "a [topology] table to predict on (the scenario format's keys; `collsim calibrate` measures one): it "
                 "replaces a scenario's [topology] but for arrange and stragglers; the flags above override its keys");
  cmd.add_option("--late", f.late, "RANK=US: the rank starts US µs late (repeatable)");
  cmd.add_option("--slow", f.slow, "RANK=FACTOR: the rank reduces and copies FACTOR times slower (repeatable)");
  list_under(cmd, before, group);
}

void add_seed_flag(CLI::App& cmd, std::uint64_t& seed, const std::string& group) {
  const std::size_t before = cmd.get_options().size();
  cmd.add_option("--seed", seed, "seed of the deterministic inputs (0 .. 2^64-1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI11 would wrap "-1" and clamp overflows silently; accept plain digits only.
            return parse_count(text) && text.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "'" + text + "' is not an integer in 0 .. 2^64-1";
          },
          "UINT64"));
  list_under(cmd, before, group);
}

}  // namespace collsim::flags
