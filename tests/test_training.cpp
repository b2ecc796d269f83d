// Tests of the training patterns (training.cpp) and the ResNet-34 model (lesson_models.cpp).
#include <doctest/doctest.h>

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
    CHECK(p.request.spec.dtype == spec.dtype);
    CHECK(p.request.spec.op == ReduceOp::sum);
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

TEST_CASE("training ddp: buckets in reverse layer order, capped, issued right after their last backward") {
  // f32; 1 MiB = 262144 elements, 2 MiB = 524288. Reverse order: L6 alone overflows the
  // first bucket (it still takes it: a bucket is never left empty); L5 + L4 = 270000; L3 + L2
  // = 524288 exactly fills bucket 3 (a cap is not exceeded by reaching it); L1 alone.
  TrainingSpec s = spec_of(TrainingPattern::ddp, custom({100000, 224288, 300000, 150000, 120000, 300000}));
  s.first_bucket_mb = 1;
  s.bucket_mb = 2;
  s.forward_us = 60;
  s.backward_us = 120;
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);

  const auto reduces = of_collective(phases, Collective::all_reduce);
  REQUIRE(reduces.size() == 4);
  const std::vector<std::vector<std::string>> grads = {
      {"grad.L6"}, {"grad.L5", "grad.L4"}, {"grad.L3", "grad.L2"}, {"grad.L1"}};
  const std::vector<std::uint64_t> counts = {300000, 270000, 524288, 100000};
  for (std::size_t b = 0; b < 4; ++b) {
    CAPTURE(b);
    CHECK(reduces[b]->reads == grads[b]);
    CHECK(reduces[b]->writes == grads[b]);
    CHECK(reduces[b]->request.spec.count == counts[b]);
    CHECK(reduces[b]->request.algorithm == "ring");
  }
  CHECK(reduces[1]->name == "all-reduce bucket 2 (L5 .. L4)");

  // The order a framework issues them in: broadcast, forward, then backward interleaved
  // with each bucket as soon as its last (lowest) layer's gradient exists.
  const std::vector<std::string> expected = {
      "broadcast parameters", "forward L1", "forward L2", "forward L3", "forward L4", "forward L5", "forward L6",
      "backward L6", "all-reduce bucket 1 (L6)", "backward L5", "backward L4", "all-reduce bucket 2 (L5 .. L4)",
      "backward L3", "backward L2", "all-reduce bucket 3 (L3 .. L2)", "backward L1", "all-reduce bucket 4 (L1)"};
  CHECK(names_of(phases) == expected);

  const Phase& broadcast = phases.front();
  CHECK(broadcast.request.spec.collective == Collective::broadcast);
  CHECK(broadcast.request.algorithm == "binomial_tree");
  CHECK(broadcast.request.spec.count == s.model.total());
  CHECK(broadcast.request.spec.root == 0);

  // Compute split by parameters, on every rank; backward writes its layer's gradient.
  const Phase& backward_l6 = phases[7];
  REQUIRE(backward_l6.kind == PhaseKind::compute);
  REQUIRE(backward_l6.compute_us.size() == 4);
  for (double us : backward_l6.compute_us) CHECK(us == doctest::Approx(120.0 * 300000 / 1194288));
  CHECK(backward_l6.writes == std::vector<std::string>{"grad.L6"});
  CHECK(phases[1].compute_us[3] == doctest::Approx(60.0 * 100000 / 1194288));
}

TEST_CASE("training ddp: without compute times only the broadcast and the buckets remain") {
  TrainingSpec s = spec_of(TrainingPattern::ddp, custom({100000, 224288, 300000, 150000, 120000, 300000}));
  s.first_bucket_mb = 1;
  s.bucket_mb = 2;
  s.broadcast_parameters = false;
  s.algorithm = "recursive_doubling";
  const auto phases = training_phases(s, 8);
  REQUIRE(phases.size() == 4);
  for (const Phase& p : phases) {
    CHECK(p.kind == PhaseKind::collective);
    CHECK(p.request.algorithm == "recursive_doubling");
  }
}

TEST_CASE("training ddp on resnet34: every layer in exactly one bucket, buckets within their caps") {
  TrainingSpec s = spec_of(TrainingPattern::ddp, resnet34());  // 1 MiB first bucket, then 25 MiB
  s.backward_us = 1000;
  const auto phases = training_phases(s, 4);
  const auto reduces = of_collective(phases, Collective::all_reduce);
  // fc (1.96 MiB, alone over the 1 MiB cap); layer4.2.conv2..layer4.2.conv1 (18.0 MiB);
  // layer4.1.conv2..layer4.0.downsample (18.5); layer4.0.conv2..layer3.3.conv2 (24.8);
  // the remaining 24 layers (19.9 MiB).
  REQUIRE(reduces.size() == 5);
  CHECK(reduces[0]->name == "all-reduce bucket 1 (fc)");
  CHECK(reduces[4]->name == "all-reduce bucket 5 (layer3.3.conv1 .. conv1)");
  std::multiset<std::string> seen;
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < reduces.size(); ++b) {
    seen.insert(reduces[b]->reads.begin(), reduces[b]->reads.end());
    sum += reduces[b]->request.spec.count;
    const double cap = (b == 0 ? s.first_bucket_mb : s.bucket_mb) * 1024 * 1024;
    if (reduces[b]->reads.size() > 1) CHECK(reduces[b]->request.spec.count * 4.0 <= cap);
  }
  CHECK(sum == s.model.total());
  CHECK(seen.size() == 37);
  for (const std::string& n : s.model.layer_names) CHECK(seen.count("grad." + n) == 1);
  // The last phase is the bucket holding conv1, right after conv1's backward.
  CHECK(phases[phases.size() - 2].name == "backward conv1");
  CHECK(phases.back().name == reduces[4]->name);
}

TEST_CASE("training fsdp: gather, compute, gather again, compute, reduce-scatter; shards padded") {
  TrainingSpec s = spec_of(TrainingPattern::fsdp, custom({10, 7, 8}));
  s.forward_us = 25;
  s.backward_us = 50;
  s.algorithm = "recursive_doubling";  // an all-gather algorithm; the reduce-scatter falls back to ring
  const auto phases = training_phases(s, 4);
  check_phases(phases, s, 4);
  const std::vector<std::string> expected = {
      "all-gather L1 (forward)",  "forward L1",  "all-gather L2 (forward)",  "forward L2",
      "all-gather L3 (forward)",  "forward L3",  "all-gather L3 (backward)", "backward L3",
      "reduce-scatter L3 gradient", "all-gather L2 (backward)", "backward L2", "reduce-scatter L2 gradient",
      "all-gather L1 (backward)", "backward L1", "reduce-scatter L1 gradient"};
  CHECK(names_of(phases) == expected);

  const auto gathers = of_collective(phases, Collective::all_gather);
  const auto scatters = of_collective(phases, Collective::reduce_scatter);
  REQUIRE(gathers.size() == 6);
  REQUIRE(scatters.size() == 3);
  // ceil(10/4) = 3, ceil(7/4) = 2, 8/4 = 2 elements per rank.
  CHECK(gathers[0]->request.spec.count == 3);
  CHECK(gathers[1]->request.spec.count == 2);
  CHECK(gathers[2]->request.spec.count == 2);
  CHECK(scatters[0]->request.spec.count == 2);  // L3
  CHECK(scatters[2]->request.spec.count == 3);  // L1
  CHECK(gathers[0]->request.algorithm == "recursive_doubling");
  CHECK(scatters[0]->request.algorithm == "ring");
  CHECK(gathers[0]->writes == std::vector<std::string>{"param.L1"});
  CHECK(phases[1].reads == std::vector<std::string>{"param.L1"});
  CHECK(phases[7].reads == std::vector<std::string>{"param.L3"});
  CHECK(phases[7].writes == std::vector<std::string>{"grad.L3"});
  CHECK(scatters[0]->reads == std::vector<std::string>{"grad.L3"});
  CHECK(scatters[0]->writes == std::vector<std::string>{"grad.L3"});
  CHECK(phases[1].compute_us[2] == doctest::Approx(25.0 * 10 / 25));

  s.forward_us = s.backward_us = 0;
  CHECK(training_phases(s, 3).size() == 3 + 3 * 2);
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
  s.pattern = TrainingPattern::fsdp;
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
