// Tests of the training patterns (training.cpp) and the ResNet-34 model (lesson_models.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/core/errors.h"
#include "sim/lesson/lesson.h"
#include "test_support.h"

namespace collsim {
namespace {

std::uint64_t layer_size(const ModelLayers& m, const std::string& name) {
  for (std::size_t i = 0; i < m.layer_names.size(); ++i)
    if (m.layer_names[i] == name) return m.parameters[i];
  FAIL("no layer " << name);
  return 0;
}

ModelLayers custom(std::vector<std::uint64_t> parameters) {
  ModelLayers m;
  m.name = "custom";
  // std::string("L") += ...: GCC 12 warns (-Wrestrict, a false positive) on "L" + to_string.
  for (std::size_t i = 0; i < parameters.size(); ++i) m.layer_names.push_back(std::string("L") += std::to_string(i + 1));
  m.parameters = std::move(parameters);
  return m;
}

TrainingSpec spec_of(TrainingPattern pattern, ModelLayers model) {
  TrainingSpec s;
  s.pattern = pattern;
  s.split_by_flops = !model.macs.empty();  // as the loader does: by multiply-adds where the model has them
  s.model = std::move(model);
  s.origin = "lesson.toml:12:1";
  return s;
}

std::vector<std::string> names_of(const std::vector<Phase>& phases) {
  std::vector<std::string> names;
  for (const Phase& p : phases) names.push_back(p.name);
  return names;
}

std::vector<const Phase*> of_collective(const std::vector<Phase>& phases, Collective c) {
  std::vector<const Phase*> out;
  for (const Phase& p : phases)
    if (p.kind == PhaseKind::collective && p.request.spec.collective == c) out.push_back(&p);
  return out;
}

// RunRequest has no operator==; the fields the training patterns set.
bool same_request(const RunRequest& a, const RunRequest& b) {
  return a.spec.collective == b.spec.collective && a.spec.ranks == b.spec.ranks && a.spec.count == b.spec.count &&
         a.spec.dtype == b.spec.dtype && a.spec.op == b.spec.op && a.spec.root == b.spec.root &&
         a.spec.in_place == b.spec.in_place && a.algorithm == b.algorithm && a.options.servers == b.options.servers &&
         a.options.colocated == b.options.colocated && a.options.slices == b.options.slices && a.seed == b.seed;
}

// Every phase is well formed, and every collective's schedule builds (and has the steps the
// phase asks for).
void check_phases(const std::vector<Phase>& phases, const TrainingSpec& spec, int ranks) {
  REQUIRE_FALSE(phases.empty());
  for (const Phase& p : phases) {
    CAPTURE(p.name);
    CHECK_FALSE(p.name.empty());
    CHECK_FALSE(p.caption.empty());
    CHECK(p.origin == spec.origin);
    if (p.kind == PhaseKind::compute) continue;
    CHECK(p.request.spec.ranks == ranks);
    // DDP's constructor and rebuild send integers (tensor counts, shapes, bucket indices) and
    // its buffer broadcasts num_batches_tracked (int64); everything else is the model's dtype.
    const bool ddp_integers = spec.pattern == TrainingPattern::ddp && p.request.spec.collective != Collective::all_reduce &&
                              (p.request.spec.dtype == DataType::i64 || p.request.spec.dtype == DataType::i32);
    CHECK((p.request.spec.dtype == spec.dtype || ddp_integers));
    // DDP and FSDP average the gradients; broadcasts, all-gathers and the parameter server sum.
    const Collective c = p.request.spec.collective;
    const bool averaged = spec.pattern != TrainingPattern::parameter_server &&
                          (c == Collective::all_reduce || c == Collective::reduce_scatter);
    CHECK(p.request.spec.op == (averaged ? ReduceOp::avg : ReduceOp::sum));
    CHECK(p.request.seed == 1);
    Schedule s;
    REQUIRE_NOTHROW(s = build_schedule(p.request.spec, p.request.algorithm, p.request.options));
    CHECK(p.last_step <= s.step_count());
  }
}

}  // namespace

TEST_CASE("resnet34: 37 layers and 21,797,672 parameters, computed from the architecture") {
  const ModelLayers m = resnet34();
  CHECK(m.name == "resnet34");
  REQUIRE(m.parameters.size() == 37);
  REQUIRE(m.layer_names.size() == 37);
  CHECK(m.total() == 21'797'672);
  CHECK(std::set<std::string>(m.layer_names.begin(), m.layer_names.end()).size() == 37);
  CHECK(m.layer_names.front() == "conv1");
  CHECK(m.layer_names.back() == "fc");
  CHECK(layer_size(m, "conv1") == 7 * 7 * 3 * 64 + 2 * 64);
  CHECK(layer_size(m, "fc") == 513'000);
  CHECK(layer_size(m, "layer4.1.conv2") == 2'359'296 + 1024);
  CHECK(layer_size(m, "layer2.0.conv1") == 3 * 3 * 64 * 128 + 2 * 128);
  CHECK(layer_size(m, "layer2.0.downsample") == 64 * 128 + 2 * 128);
  CHECK(layer_size(m, "layer1.2.conv2") == 3 * 3 * 64 * 64 + 2 * 64);
  // Downsamples only on the first block of stages 2-4.
  int downsamples = 0;
  for (const std::string& n : m.layer_names) downsamples += n.ends_with(".downsample");
  CHECK(downsamples == 3);
  CHECK(ModelLayers{}.total() == 0);
}

namespace {

// PyTorch's compute_bucket_assignment_by_size (reducer.cpp), written here from its
// description and not from training.cpp: tensors in gradient-ready order (reverse
// registration order, but a BatchNorm's ".weight" before its ".bias", as measured in
// docs/ddp-measured.md), each added to the open bucket, which closes once its size reaches
// its limit; the first bucket's limit is `first`, every later one's `rest` (bytes).
std::vector<std::vector<std::string>> reference_buckets(const ModelLayers& m, double first, double rest) {
  std::vector<std::pair<std::string, std::uint64_t>> ready;
  for (std::size_t layer = m.parameters.size(); layer-- > 0;) {
    const std::vector<ModelTensor> tensors = layer_tensors(m, layer);
    for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
      const bool bn_bias = it->name.starts_with("bn") || it->name.find(".bn") != std::string::npos ||
                           it->name.find("downsample.1") != std::string::npos;
      if (bn_bias && it->name.ends_with(".bias") && std::next(it) != tensors.rend()) {
        ready.emplace_back(std::next(it)->name, std::next(it)->elements);  // its weight first
        ready.emplace_back(it->name, it->elements);
        ++it;
        continue;
      }
      ready.emplace_back(it->name, it->elements);
    }
  }
  std::vector<std::vector<std::string>> buckets(1);
  double bytes = 0;
  for (const auto& [name, elements] : ready) {
    if (buckets.back().empty() && bytes > 0) bytes = 0;
    buckets.back().push_back(name);
    bytes += 4.0 * static_cast<double>(elements);
    if (bytes >= (buckets.size() == 1 ? first : rest)) {
      buckets.emplace_back();
      bytes = 0;
    }
  }
  if (buckets.back().empty()) buckets.pop_back();
  return buckets;
}

std::vector<std::vector<std::string>> tensor_names(const std::vector<DdpBucket>& buckets) {
  std::vector<std::vector<std::string>> out;
  for (const DdpBucket& b : buckets) {
    out.emplace_back();
    for (const ModelTensor& t : b.tensors) out.back().push_back(t.name);
  }
  return out;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("resnet34: 110 tensors in torchvision's registration order, buffers and multiply-adds from the architecture") {
  const ModelLayers m = resnet34();
  std::vector<ModelTensor> all;
  for (std::size_t layer = 0; layer < m.parameters.size(); ++layer)
    for (const ModelTensor& t : layer_tensors(m, layer)) all.push_back(t);
  REQUIRE(all.size() == 110);  // 36 conv weights + 36 x (bn weight, bn bias) + fc weight, bias
  CHECK(all[0].name == "conv1.weight");
  CHECK(all[0].elements == 64 * 3 * 7 * 7);
  CHECK(all[1].name == "bn1.weight");
  CHECK(all[2].name == "bn1.bias");
  CHECK(all[3].name == "layer1.0.conv1.weight");
  CHECK(all.back().name == "fc.bias");
  CHECK(all.back().elements == 1000);
  std::uint64_t sum = 0;
  for (const ModelTensor& t : all) sum += t.elements;
  CHECK(sum == 21'797'672);
  // The shortcut's projection comes after the block's second conv, as BasicBlock registers it.
  const auto at = [&](const std::string& name) {
    return std::find_if(all.begin(), all.end(), [&](const ModelTensor& t) { return t.name == name; }) - all.begin();
  };
  CHECK(at("layer2.0.downsample.0.weight") == at("layer2.0.bn2.bias") + 1);
  CHECK(all[static_cast<std::size_t>(at("layer2.0.downsample.0.weight"))].elements == 128 * 64);
  // Buffers: running_mean and running_var per channel, one num_batches_tracked per batch norm.
  std::uint64_t channels = 0;
  for (const ModelTensor& t : all)
    if (t.name.ends_with(".bias") && t.name != "fc.bias") channels += t.elements;
  CHECK(m.buffer_bytes() == 4 * 2 * channels + 8 * 36);
  // Multiply-adds: 3.6 G at 224 x 224 (He et al. 2016, Table 1); layer4 holds most of the
  // parameters but under a fifth of the multiply-adds.
  CHECK(m.total_macs() == doctest::Approx(3.6e9).epsilon(0.02));
  double layer4_macs = 0, layer4_params = 0;
  for (std::size_t i = 0; i < m.parameters.size(); ++i)
    if (m.layer_names[i].starts_with("layer4")) layer4_macs += m.macs[i], layer4_params += static_cast<double>(m.parameters[i]);
  CHECK(layer4_params / static_cast<double>(m.total()) > 0.59);
  CHECK(layer4_macs / m.total_macs() < 0.2);
  CHECK(m.macs[0] == 112.0 * 112 * 64 * 3 * 49);  // conv1: 7x7 stride 2 on 224 gives 112 x 112
  CHECK(resnet34(112).total_macs() < m.total_macs() / 3.5);  // a quarter of the pixels
}

TEST_CASE("training ddp: buckets by PyTorch's rule on ResNet-34, per tensor, computed independently") {
  TrainingSpec s = spec_of(TrainingPattern::ddp, resnet34());
  const auto later = ddp_buckets(s, DdpPart::later);
  const auto expected = reference_buckets(s.model, 1 * kMiB, 25 * kMiB);
  CHECK(tensor_names(later) == expected);
  REQUIRE(later.size() == 5);
  CHECK(expected[0] == std::vector<std::string>{"fc.bias", "fc.weight"});  // 1.96 MiB: over the 1 MiB limit
  // What PyTorch 2.15 built for ResNet-34 (docs/ddp-measured.md, "The rebuilt buckets"):
  // bytes, tensor counts and first tensors of the five rebuilt buckets.
  const std::vector<std::uint64_t> measured_bytes = {2'052'000, 28'323'840, 26'494'976, 26'700'800, 3'619'072};
  const std::vector<std::size_t> measured_tensors = {2, 9, 15, 45, 39};
  const std::vector<std::string> measured_first = {"fc.bias", "layer4.2.bn2.weight", "layer4.1.bn1.weight",
                                                   "layer3.5.bn1.weight", "layer2.2.bn1.weight"};
  for (std::size_t k = 0; k < later.size() && k < 5; ++k) {
    CAPTURE(k);
    CHECK(later[k].elements * 4 == measured_bytes[k]);
    CHECK(later[k].tensors.size() == measured_tensors[k]);
    CHECK(later[k].tensors.front().name == measured_first[k]);
  }
  CHECK(later[1].tensors[1].name == "layer4.2.bn2.bias");  // inside a BatchNorm, the weight first
  // The rule adds a tensor before it closes the bucket: buckets exceed 25 MiB.
  CHECK(static_cast<double>(later[1].elements) * 4 > 25 * kMiB);
  CHECK(later[1].limit_bytes == 25 * kMiB);
  CHECK(later[0].limit_bytes == 1 * kMiB);
  // The first iteration: one bucket of every tensor.
  const auto first = ddp_buckets(s, DdpPart::first);
  REQUIRE(first.size() == 1);
  CHECK(first[0].tensors.size() == 110);
  CHECK(first[0].elements == s.model.total());
  CHECK(std::isinf(first[0].limit_bytes));
  // Another cap, the same rule.
  s.bucket_mb = 10;
  CHECK(tensor_names(ddp_buckets(s, DdpPart::later)) == reference_buckets(s.model, 1 * kMiB, 10 * kMiB));
}

TEST_CASE("training ddp: an iteration broadcasts buffers, computes, and all-reduces each bucket after its last gradient") {
  // f32, one tensor per layer; 1 MiB = 262144 elements, 2 MiB = 524288. Ready order L6..L1:
  // L6 alone reaches the first limit; L5 + L4 + L3 = 570000 reaches 2 MiB; L2 + L1 are left.
  TrainingSpec s = spec_of(TrainingPattern::ddp, custom({100000, 224288, 300000, 150000, 120000, 300000}));
  s.first_bucket_mb = 1;
  s.bucket_mb = 2;
  s.forward_us = 60;
  s.backward_us = 120;
  s.split_by_flops = false;
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);
  CHECK(tensor_names(ddp_buckets(s, DdpPart::later)) == reference_buckets(s.model, kMiB, 2 * kMiB));
  const std::vector<std::string> expected = {
      "forward L1", "forward L2", "forward L3", "forward L4", "forward L5", "forward L6",
      "backward L6", "all-reduce bucket 1 (L6.weight)", "backward L5", "backward L4", "backward L3",
      "all-reduce bucket 2 (L5.weight .. L3.weight)", "backward L2", "backward L1",
      "all-reduce bucket 3 (L2.weight .. L1.weight)"};
  CHECK(names_of(phases) == expected);  // a custom model has no buffers to broadcast
  const auto reduces = of_collective(phases, Collective::all_reduce);
  REQUIRE(reduces.size() == 3);
  CHECK(reduces[1]->reads == std::vector<std::string>{"grad.L5", "grad.L4", "grad.L3"});
  CHECK(reduces[1]->request.spec.count == 570000);
  CHECK(reduces[1]->request.spec.op == ReduceOp::avg);
  // Compute split by parameters, on every rank; backward writes its layer's gradient.
  const Phase& backward_l6 = phases[6];
  for (double us : backward_l6.compute_us) CHECK(us == doctest::Approx(120.0 * 300000 / 1194288));
  CHECK(backward_l6.writes == std::vector<std::string>{"grad.L6"});
}

TEST_CASE("training ddp: the constructor, the first iteration and a later one, in order") {
  TrainingSpec s = spec_of(TrainingPattern::ddp, resnet34());
  s.parts = {DdpPart::constructor, DdpPart::first, DdpPart::later};
  s.device_tflops = 20;
  s.batch = 32;
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);
  // The constructor as PyTorch 2.15 issued it (docs/ddp-measured.md, rows 1-4): the shape
  // check's all-gather of one int64 and broadcast of 2 x 219 int64 (sizes and strides of the
  // 110 tensors' dimensions), then one broadcast per dtype of the state_dict.
  struct Expected {
    const char* name;
    Collective collective;
    DataType dtype;
    std::uint64_t count;
  };
  const std::uint64_t f32_buffers = (s.model.buffer_bytes() - 8 * 36) / 4;
  const std::vector<Expected> expected = {
      {"constructor: all-gather parameter count", Collective::all_gather, DataType::i64, 1},
      {"constructor: broadcast parameter shapes", Collective::broadcast, DataType::i64, 438},
      {"constructor: broadcast state_dict f32", Collective::broadcast, DataType::f32, 21'814'696},
      {"constructor: broadcast state_dict i64", Collective::broadcast, DataType::i64, 36},
      {"iteration 1: broadcast buffers f32", Collective::broadcast, DataType::f32, 17'024},
      {"iteration 1: broadcast buffers i64", Collective::broadcast, DataType::i64, 36}};
  CHECK(f32_buffers == 17'024);
  CHECK(s.model.total() + f32_buffers == 21'814'696);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    CAPTURE(k);
    CHECK(phases[k].name == expected[k].name);
    CHECK(phases[k].request.spec.collective == expected[k].collective);
    CHECK(phases[k].request.spec.dtype == expected[k].dtype);
    CHECK(phases[k].request.spec.count == expected[k].count);
  }
  CHECK(phases[1].request.algorithm == "chain");  // NCCL's broadcast: a pipelined chain
  CHECK(phases[2].writes == std::vector<std::string>{"params", "buffers"});
  // Iteration 2's forward begins with the rebuilt buckets' assignment (rows 8-9: 110 indices
  // and the bucket count, then 5 bucket sizes, int32), then the buffers again.
  const auto rebuild = std::find_if(phases.begin(), phases.end(), [](const Phase& p) { return p.name.starts_with("iteration 2"); });
  REQUIRE(phases.end() - rebuild > 4);
  CHECK(rebuild[0].name == "iteration 2: broadcast rebuilt bucket indices");
  CHECK(rebuild[0].request.spec.dtype == DataType::i32);
  CHECK(rebuild[0].request.spec.count == 111);
  CHECK(rebuild[1].name == "iteration 2: broadcast rebuilt bucket sizes");
  CHECK(rebuild[1].request.spec.count == 5);
  CHECK(rebuild[2].name == "iteration 2: broadcast buffers f32");
  CHECK(rebuild[3].name == "iteration 2: broadcast buffers i64");
  // A steady-state iteration alone (no "first" before it) has nothing to rebuild.
  s.parts = {DdpPart::later};
  const auto steady = training_phases(s, 4);
  CHECK(steady[0].name == "broadcast buffers f32");
  CHECK(of_collective(steady, Collective::broadcast).size() == 2);
  s.parts = {DdpPart::constructor, DdpPart::first, DdpPart::later};
  const auto reduces = of_collective(phases, Collective::all_reduce);
  REQUIRE(reduces.size() == 1 + 5);
  CHECK(reduces[0]->name.starts_with("iteration 1: all-reduce bucket 1 (fc.bias .. conv1.weight)"));
  CHECK(reduces[0]->request.spec.count == s.model.total());
  // Iteration 2's first forward waits for iteration 1's all-reduce.
  const auto second = std::find_if(phases.begin(), phases.end(), [](const Phase& p) { return p.name == "iteration 2: forward conv1"; });
  REQUIRE(second != phases.end());
  REQUIRE(second->wait_for.size() == 1);
  CHECK(phases[static_cast<std::size_t>(second->wait_for[0])].name == reduces[0]->name);
  // Compute from multiply-adds: conv1's forward is 2 x MACs x 32 samples at 20 TFLOP/s, backward twice that.
  const auto f = std::find_if(phases.begin(), phases.end(), [](const Phase& p) { return p.name == "iteration 1: forward conv1"; });
  CHECK(f->compute_us[0] == doctest::Approx(2 * s.model.macs[0] * 32 / 20e6));
  const auto b = std::find_if(phases.begin(), phases.end(), [](const Phase& p) { return p.name == "iteration 1: backward conv1"; });
  CHECK(b->compute_us[0] == doctest::Approx(2 * f->compute_us[0]));
}

TEST_CASE("training fsdp: BACKWARD_PRE by default, allocations and frees, limit_all_gathers' host waits") {
  TrainingSpec s = spec_of(TrainingPattern::fsdp, custom({10, 7, 8}));
  s.forward_us = 25;
  s.backward_us = 50;
  s.split_by_flops = false;
  s.algorithm = "recursive_doubling";  // an all-gather algorithm; the reduce-scatter falls back to ring
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);
  const std::vector<std::string> expected = {
      "all-gather L1 (forward)",  "forward L1",  "all-gather L2 (forward)",  "forward L2",
      "all-gather L3 (forward)",  "forward L3",  "all-gather L3 (backward)", "all-gather L2 (backward)",
      "backward L3", "reduce-scatter L3 gradient", "all-gather L1 (backward)", "backward L2",
      "reduce-scatter L2 gradient", "backward L1", "reduce-scatter L1 gradient"};
  CHECK(names_of(phases) == expected);
  // ceil(10/4) = 3 elements per rank; the gathered copy is 4 x 3 f32.
  CHECK(phases[0].request.spec.count == 3);
  CHECK(phases[0].allocates == std::vector<std::pair<std::string, double>>{{"param.L1", 48.0}});
  CHECK(phases[1].frees == std::vector<std::string>{"param.L1"});
  CHECK(phases[8].frees == std::vector<std::string>{"param.L3"});
  CHECK(phases[9].request.spec.op == ReduceOp::avg);
  CHECK(phases[0].request.algorithm == "recursive_doubling");
  CHECK(phases[9].request.algorithm == "ring");
  // limit_all_gathers: the third all-gather waits for the first free (forward L1), the
  // fourth (L3 backward) for the second (forward L2).
  CHECK(phases[0].host_wait_for.empty());
  CHECK(phases[2].host_wait_for.empty());
  CHECK(phases[4].host_wait_for == std::vector<int>{1});
  CHECK(phases[6].host_wait_for == std::vector<int>{3});

  s.fsdp = {FsdpOptions{"none", BackwardPrefetch::none, false, false}, FsdpOptions{"post", BackwardPrefetch::backward_post, true, true}};
  const auto two = training_phases(s, 4);
  const std::vector<std::string> none = {
      "none: all-gather L1 (forward)", "none: forward L1", "none: all-gather L2 (forward)", "none: forward L2",
      "none: all-gather L3 (forward)", "none: forward L3", "none: all-gather L3 (backward)", "none: backward L3",
      "none: reduce-scatter L3 gradient", "none: all-gather L2 (backward)", "none: backward L2",
      "none: reduce-scatter L2 gradient", "none: all-gather L1 (backward)", "none: backward L1",
      "none: reduce-scatter L1 gradient"};
  REQUIRE(two.size() == 2 * none.size());
  const std::vector<std::string> two_names = names_of(two);
  CHECK(std::vector<std::string>(two_names.begin(), two_names.begin() + 15) == none);
  for (std::size_t k = 0; k < 15; ++k) CHECK(two[k].host_wait_for.empty());  // no limit
  // The second step starts after a host synchronisation; forward_prefetch gathers L2 before forward L1.
  CHECK(two[15].synchronize);
  CHECK(two[16].name == "post: all-gather L2 (forward)");
  CHECK(two[17].name == "post: forward L1");
  // BACKWARD_POST: the next all-gather after the current backward, before its reduce-scatter.
  const auto& names = two_names;
  const auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  CHECK(at("post: all-gather L2 (backward)") == at("post: backward L3") + 1);
  CHECK(at("post: reduce-scatter L3 gradient") == at("post: all-gather L2 (backward)") + 1);
}

TEST_CASE("training parameter_server: push and pull are steps 1 and 2 of one all-reduce, update on servers only") {
  TrainingSpec s = spec_of(TrainingPattern::parameter_server, custom({1000, 3000}));
  s.servers = 2;
  s.forward_us = 10;
  s.backward_us = 20;
  s.update_us = 5;
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);
  CHECK(names_of(phases) == std::vector<std::string>{"forward", "backward", "push", "SGD update", "pull"});

  const Phase& push = phases[2];
  const Phase& update = phases[3];
  const Phase& pull = phases[4];
  CHECK(same_request(push.request, pull.request));
  CHECK(push.request.algorithm == "parameter_server");
  CHECK(push.request.options.servers == 2);
  CHECK(push.request.spec.count == 4000);
  CHECK(push.request.spec.ranks == 4);  // the workers; the servers are ranks 4 and 5
  CHECK((push.first_step == 1 && push.last_step == 1));
  CHECK((pull.first_step == 2 && pull.last_step == 2));
  const Schedule schedule = build_schedule(push.request.spec, push.request.algorithm, push.request.options);
  CHECK(schedule.step_count() == 2);
  CHECK(schedule.total_ranks == 6);

  CHECK(phases[0].compute_us == std::vector<double>{10, 10, 10, 10, 0, 0});
  CHECK(phases[1].compute_us == std::vector<double>{20, 20, 20, 20, 0, 0});
  CHECK(update.compute_us == std::vector<double>{0, 0, 0, 0, 5, 5});
  // The update waits for the push and the pull waits for the update.
  CHECK(push.writes == std::vector<std::string>{"grad.server"});
  CHECK(update.reads == std::vector<std::string>{"grad.server"});
  CHECK(update.writes == std::vector<std::string>{"params.shard"});
  CHECK(pull.reads == std::vector<std::string>{"params.shard"});

  s.forward_us = s.backward_us = s.update_us = 0;
  CHECK(names_of(training_phases(s, 2)) == std::vector<std::string>{"push", "pull"});
}

TEST_CASE("training on resnet34: the schedules of every pattern build on 2, 4 and 8 ranks") {
  for (TrainingPattern pattern : {TrainingPattern::ddp, TrainingPattern::fsdp, TrainingPattern::parameter_server})
    for (int ranks : {2, 4, 8}) {
      CAPTURE(static_cast<int>(pattern));
      CAPTURE(ranks);
      TrainingSpec s = spec_of(pattern, resnet34());
      s.forward_us = 300;
      s.backward_us = 600;
      s.update_us = 50;
      s.servers = 2;
      check_phases(training_phases(s, ranks), s, ranks);
    }
}

TEST_CASE("training: impossible input names the [training] table and the key") {
  auto error_of = [](const TrainingSpec& s, int ranks) {
    const std::string error = testing::input_error([&] { training_phases(s, ranks); });
    return error.empty() ? std::string("no error") : error;
  };
  const TrainingSpec good = spec_of(TrainingPattern::ddp, custom({10, 20}));
  REQUIRE(error_of(good, 2) == "no error");

  TrainingSpec s = good;
  s.model = ModelLayers{};
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.model': the model has no layers"));
  s = good;
  s.model.parameters[1] = 0;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.model': layer 2 has 0 parameters"));
  // Sizes that would overflow the sums and byte counts are refused before anything adds them.
  s = good;
  s.model.parameters = {std::uint64_t{1} << 62, std::uint64_t{1} << 62};
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.model': layers 1..1 have more than 281474976710656 parameters of f32"));
  s.model.parameters = {std::uint64_t{1} << 47, (std::uint64_t{1} << 47) + 1};  // each fits in 2^50 bytes of f32; both do not
  CHECK(error_of(s, 2).find("layers 1..2 have more than") != std::string::npos);
  s = good;
  s.bucket_mb = 0;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.bucket_mb': must be > 0"));
  s = good;
  s.first_bucket_mb = -1;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.first_bucket_mb'"));
  s = good;
  s.backward_us = -3;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.backward_us': must be >= 0"));
  s = good;
  s.algorithm = "rong";
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.algorithm': no all-reduce algorithm 'rong'"));

  s = good;
  s.device_tflops = 10;
  s.batch = 8;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.device_tflops': the model has no multiply-adds"));
  s.model = resnet34();
  CHECK(error_of(s, 2) == "no error");
  s.batch = 0;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.batch': must be at least 1"));
  s = good;
  s.forward_us = 10;
  s.split_by_flops = true;  // by multiply-adds, which a custom model does not have
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.split'"));
  s = good;
  s.parts = {DdpPart::later, DdpPart::first};
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.iterations': the parts come in the order"));

  s = good;
  s.pattern = TrainingPattern::fsdp;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.pattern': fsdp frees"));
  s.split_by_flops = false;
  s.forward_us = 10;
  s.backward_us = 20;
  CHECK(error_of(s, 1).starts_with("lesson.toml:12:1: key 'training.pattern': fsdp shards"));
  CHECK(error_of(s, 2) == "no error");

  s = good;
  s.pattern = TrainingPattern::parameter_server;
  s.servers = 3;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.servers'"));
  s.servers = 0;
  CHECK(error_of(s, 2).starts_with("lesson.toml:12:1: key 'training.servers'"));
  s.servers = 2;
  CHECK(error_of(s, 2) == "no error");
}

}  // namespace collsim
