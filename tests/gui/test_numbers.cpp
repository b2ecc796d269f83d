// The numbers' headline (app/views/numbers.h, headline_numbers): the prediction first,
// labelled with its topology and protocol, then the simulation's own measured time, labelled
// as such; a model-only trace has no measured line, a trace without predictions no
// predicted one. The app's numbers panel and the web page (page.cpp) show these lines.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include "app/views/loader.h"
#include "app/views/numbers.h"
#include "sim/schedule/algorithm.h"

using namespace collsim;
using namespace collsim::gui;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Trace loaded_trace(TopologyKind kind, Protocol protocol, LatencyRule rule = LatencyRule::delay) {
  RunRequest run;
  run.spec.collective = Collective::all_reduce;
  run.spec.ranks = 4;
  run.spec.count = 4096;
  run.algorithm = "ring";
  run.options = resolve_options(run.spec, run.algorithm, {});
  LoadRequest r;
  r.run = run;
  r.topology.kind = kind;
  r.topology.protocol = protocol;
  r.topology.latency_rule = rule;
  Progress p;
  const LoadResult loaded = load(r, p);
  REQUIRE_MESSAGE(loaded.model, loaded.error);
  return loaded.model->trace();
}

}  // namespace

TEST_CASE("gui numbers: the prediction first, labelled with its topology and protocol, then the measured time") {
  const Trace t = loaded_trace(TopologyKind::ring, Protocol::none);
  REQUIRE(t.predicted);
  REQUIRE_FALSE(t.model_only);
  const std::vector<NumbersLine> lines = headline_numbers(t);
  REQUIRE(lines.size() == 2);
  const NumbersLine& predicted = lines[0];
  CHECK(predicted.kind == NumbersLine::Kind::predicted);
  CHECK(to_string(predicted.kind) == "predicted");
  CHECK(predicted.head == "predicted");
  CHECK(predicted.label() == "predicted on " + t.predicted->topology + " (no protocol)");
  CHECK(predicted.label().starts_with("predicted on ring, 4 ranks"));
  CHECK(predicted.figures.starts_with(format_duration_ns(t.predicted->time_ns) + ", algbw "));
  CHECK(has(predicted.figures, fmt::format("busbw {:.2f} GB/s", *t.predicted->busbw_gbps)));
  CHECK(predicted.note.starts_with("bottleneck: " + t.predicted->busiest_links.front().link));
  CHECK(predicted.text() == predicted.label() + ": " + predicted.figures);

  const NumbersLine& measured = lines[1];
  CHECK(measured.kind == NumbersLine::Kind::measured);
  CHECK(to_string(measured.kind) == "measured");
  REQUIRE_FALSE(t.device.empty());
  CHECK(measured.head == "measured");
  CHECK(measured.label() == "measured: the simulation's own time on the computer that ran it, " + t.device);
  CHECK(measured.figures.starts_with(format_duration_ns(static_cast<double>(t.summary.time_ns)) + ", algbw "));
  CHECK(measured.note.empty());
}

TEST_CASE("gui numbers: the protocol the prediction used is named, and auto says it chose it") {
  const Trace ll = loaded_trace(TopologyKind::switch_fabric, Protocol::ll);
  CHECK(headline_numbers(ll).front().label() == "predicted on " + ll.predicted->topology + " (protocol LL)");
  const Trace chosen = loaded_trace(TopologyKind::switch_fabric, Protocol::automatic);
  const std::string label = headline_numbers(chosen).front().label();
  CHECK(label.starts_with("predicted on switch, 4 ranks"));
  CHECK(label.ends_with(fmt::format("(protocol {}, auto's choice)", protocol_label(chosen.predicted->protocol))));
}

TEST_CASE("gui numbers: a model-only trace has no measured line, a trace without predictions no predicted one") {
  Trace t = loaded_trace(TopologyKind::switch_fabric, Protocol::none);
  Trace model_only = t;
  model_only.model_only = true;
  model_only.backend = "none";
  const std::vector<NumbersLine> only_predicted = headline_numbers(model_only);
  REQUIRE(only_predicted.size() == 1);
  CHECK(only_predicted[0].kind == NumbersLine::Kind::predicted);

  Trace unpredicted = t;
  unpredicted.predicted.reset();
  const std::vector<NumbersLine> only_measured = headline_numbers(unpredicted);
  REQUIRE(only_measured.size() == 1);
  CHECK(only_measured[0].kind == NumbersLine::Kind::measured);

  unpredicted.backend.clear();
  unpredicted.device.clear();
  unpredicted.summary = {};
  CHECK(headline_numbers(unpredicted).empty());  // a schedule that never ran, without predictions
}

TEST_CASE("gui numbers: the stage's line is the prediction, then this computer's time, and its short form drops the protocol and device") {
  const Trace t = loaded_trace(TopologyKind::ring, Protocol::ll);
  REQUIRE(t.predicted);
  const std::string predicted = stage_predicted_words(t), measured = stage_measured_words(t);
  CHECK(predicted == fmt::format("predicted {} on ring, {} (LL), latency as delay", format_duration_ns(t.predicted->time_ns),
                                 default_link_preset(TopologyKind::ring)));
  CHECK(measured.starts_with(fmt::format("this computer simulated it in {}", format_duration_ns(static_cast<double>(t.summary.time_ns)))));
  CHECK(has(measured, "(" + (t.device.empty() ? t.backend : t.device) + ")"));
  CHECK(stage_numbers_line(t) == predicted + " · " + measured);
  const std::string short_line = stage_numbers_line(t, true);
  CHECK(short_line.starts_with(fmt::format("predicted {} on ring, ", format_duration_ns(t.predicted->time_ns))));
  CHECK_FALSE(has(short_line, "(LL)"));
  CHECK_FALSE(has(short_line, "latency"));  // the default rule goes unnamed where space is short
  CHECK(short_line.ends_with(format_duration_ns(static_cast<double>(t.summary.time_ns))));
  // A model-only trace: the prediction alone.
  Trace model = t;
  model.model_only = true;
  CHECK(stage_measured_words(model).empty());
  CHECK(stage_numbers_line(model) == predicted);
  // The textbooks' rule changes the figure: both forms say so.
  const Trace message = loaded_trace(TopologyKind::ring, Protocol::ll, LatencyRule::message);
  CHECK(stage_predicted_words(message).ends_with("(LL), latency per message"));
  CHECK(stage_predicted_words(message, true).ends_with(", latency per message"));
}
