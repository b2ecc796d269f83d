// The streamed timing model (predict_streamed) against the whole one (predict): for every
// registered algorithm that streams, at every rank count and topology below, the same
// time for every transfer to the nanosecond (to the bit, in fact), the same total and the
// same busiest links — with the steps added one at a time, the hardest case for the window,
// and in larger batches. Every algorithm that does not stream must say so (NotStreamable)
// at one of the cases below, so that AlgorithmInfo::streams is true exactly where it works.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/model/timing_model.h"
#include "sim/schedule/algorithm.h"
#include "test_support.h"

using namespace collsim;
using collsim::testing::base_model_cases;
using collsim::testing::ModelCase;

namespace {

std::vector<ModelCase> model_cases() {
  std::vector<ModelCase> cases = base_model_cases();
  TopologyConfig ring;
  ring.kind = TopologyKind::ring;
  ring.stragglers.push_back({1, 3.0, 2.5, ""});
  cases.push_back({"ring topology, rank 1 late and slow", ring});
  return cases;
}

struct Times {
  std::vector<double> begin, end;
};

// The streamed prediction, with every transfer's times as it handed them on.
StreamedModel streamed(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                       const Topology& t, std::size_t batch, Times& times) {
  StreamOptions o;
  o.batch_transfers = batch;
  o.window_steps = stream_window_steps(spec, algorithm, options);
  o.observe = [&](std::uint64_t first, std::uint64_t last, double begin, double end) {
    if (times.begin.size() < last) times.begin.resize(last, -1), times.end.resize(last, -1);
    for (std::uint64_t i = first; i < last; ++i) times.begin[i] = begin, times.end[i] = end;
  };
  return predict_streamed([&] { return build_algorithm_schedule(spec, algorithm, options); }, t, o);
}

// Whether the streamed prediction equals the whole one; false where the algorithm says it
// cannot stream.
bool check_equal(const CollectiveSpec& spec, const AlgorithmInfo& a, const AlgorithmOptions& options,
                 const ModelCase& mc, std::size_t batch) {
  const Schedule whole = build_algorithm_schedule(spec, a.name, options);
  const Topology t = make_topology(mc.config, spec.ranks, whole.total_ranks);
  const Prediction expected = predict(whole, derive_dependencies(whole), t);
  Times times;
  StreamedModel got;
  try {
    got = streamed(spec, a.name, options, t, batch, times);
  } catch (const NotStreamable&) {
    return false;
  }
  INFO(fmt::format("{} {} on {} ranks, count {}, {} slices, {}, batches of {}", to_string(spec.collective), a.name,
                   spec.ranks, spec.count, options.slices, mc.name, batch));
  CHECK(got.prediction.total_ns == expected.total_ns);
  CHECK(got.prediction.links_used == expected.links_used);
  REQUIRE(got.prediction.busiest.size() == expected.busiest.size());
  for (std::size_t i = 0; i < expected.busiest.size(); ++i) {
    CHECK(got.prediction.busiest[i].link == expected.busiest[i].link);
    CHECK(got.prediction.busiest[i].busy_ns == expected.busiest[i].busy_ns);
  }
  CHECK(got.totals.transfers == whole.transfers.size());
  CHECK(got.totals.steps == whole.step_count());
  CHECK(got.totals.communication_steps == communication_steps(whole));
  CHECK(got.totals.bytes_sent == bytes_sent_per_rank(whole));
  CHECK(got.schedule.step_labels == whole.step_labels);
  CHECK(got.schedule.step_stages == whole.step_stages);
  CHECK(got.schedule.transfers.empty());
  REQUIRE(times.begin.size() == whole.transfers.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < whole.transfers.size(); ++i)
    if (times.begin[i] != expected.begin_ns[i] || times.end[i] != expected.end_ns[i]) {
      if (differ++ == 0)
        FAIL_CHECK(fmt::format("transfer {} (step {}): streamed {}..{} ns, whole {}..{} ns", i,
                               whole.transfers[i].step + 1, times.begin[i], times.end[i], expected.begin_ns[i],
                               expected.end_ns[i]));
    }
  CHECK(differ == 0);
  return true;
}

}  // namespace

TEST_CASE("the streamed model equals the whole one, transfer by transfer, for every algorithm that streams") {
  const std::vector<ModelCase> cases = model_cases();
  for (const AlgorithmInfo& a : all_algorithms()) {
    bool refused = false;
    for (int n : {2, 3, 5, 8, 12}) {
      CollectiveSpec spec{a.collective, n, 1000, DataType::f32, ReduceOp::sum, 0};
      if (a.collective == Collective::barrier) spec.count = 0;
      if (a.collective == Collective::send_recv) spec.root = 0;
      std::vector<AlgorithmOptions> options{{}};
      if (a.knobs.slices) options.push_back({.slices = 3});
      for (const AlgorithmOptions& o : options) {
        try {
          validate_request(spec, &a, o);
        } catch (const InputError&) {
          continue;  // e.g. an algorithm for powers of two only
        }
        for (const ModelCase& mc : cases)
          for (std::size_t batch : {std::size_t{1}, std::size_t{40}})
            if (!check_equal(spec, a, o, mc, batch)) refused = true;
      }
    }
    INFO(fmt::format("{} {}: {}", to_string(a.collective), a.name, refused ? "cannot stream" : "streams"));
    CHECK(a.streams == !refused);
  }
}

TEST_CASE("a streamed prediction holds a few steps, not the schedule") {
  // A 64-rank ring: 8 064 transfers in 126 steps of 64; added a step at a time, the
  // model holds the steps in flight (the batch, the steps before it that its dependencies
  // are derived over, the generated ones not yet forgotten), a dozen steps at most.
  const CollectiveSpec spec{Collective::all_reduce, 64, 1 << 16, DataType::f32, ReduceOp::sum, 0};
  const Topology t = make_topology({}, 64, 64);
  Times times;
  const StreamedModel m = streamed(spec, "ring", {}, t, 1, times);
  CHECK(m.totals.transfers == 2 * 63 * 64);
  CHECK(m.peak_window_transfers <= 12 * 64);
  CHECK(m.peak_window_transfers >= 64);
}

TEST_CASE("ranks that drift apart: the batches are derived again over everything still in flight") {
  // Rank 3 starts 200 µs late: the ranks before it in the ring run ahead until they wait for
  // its data, so more steps are in flight than the window reaches. The times stay exact.
  TopologyConfig late;
  late.stragglers.push_back({3, 200.0, 1.0, ""});
  const ModelCase mc{"switch, rank 3 200 µs late", late};
  for (const char* algorithm : {"ring", "double_binary_tree"}) {
    const CollectiveSpec spec{Collective::all_reduce, 12, 4096, DataType::f32, ReduceOp::sum, 0};
    CHECK(check_equal(spec, *find_algorithm(Collective::all_reduce, algorithm), {}, mc, 1));
    Times times;
    const StreamedModel m =
        streamed(spec, algorithm, {}, make_topology(late, 12, 12), 1, times);
    CHECK(m.batches_derived_again > 0);
  }
}

TEST_CASE("a streamed run forgets what has ended while messages queue for a busy link") {
  // 256 workers push and pull 16 slices each through one parameter server: the server's
  // link is busy, so messages wait in its lane's list while thousands of others end and are
  // forgotten (the simulation throws if it ever looks a forgotten one up). The times stay
  // those of the whole model.
  const CollectiveSpec spec{Collective::all_reduce, 256, 1 << 14, DataType::f32, ReduceOp::sum, 0};
  const AlgorithmInfo* ps = find_algorithm(Collective::all_reduce, "parameter_server");
  REQUIRE(ps != nullptr);
  CHECK(check_equal(spec, *ps, {.slices = 16}, {"switch, latency as delay", {}}, 1));
  CHECK(check_equal(spec, *ps, {.slices = 16}, {"switch, latency as delay", {}}, 3000));
}

TEST_CASE("an algorithm that cannot stream says which transfer came too late") {
  // Recursive doubling on 6 ranks folds ranks 4 and 5 in first: ranks 0 to 3 exchange with
  // each other in the next step without waiting for anything of that step, so the step
  // after the fold-in is ready from the start, before a step-by-step window has it.
  const CollectiveSpec spec{Collective::all_reduce, 6, 64, DataType::f32, ReduceOp::sum, 0};
  const Topology t = make_topology({}, 6, 6);
  Times times;
  CHECK_THROWS_WITH_AS(streamed(spec, "recursive_doubling", {}, t, 1, times),
                       doctest::Contains("before it was generated"), NotStreamable);
  CHECK_FALSE(find_algorithm(Collective::all_reduce, "recursive_doubling")->streams);
}
