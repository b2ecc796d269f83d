// A lecture: the slides a teacher walks through in the app's presenter mode with PageDown
// and PageUp, each a scenario, lesson or trace file at a phase, a step, a clock and
// optionally a comparison (docs/scenario-format.md, "Lecture files"). Plain data; the file
// is checked when it is read — every key, every slide's file exists — and the rest (the
// phase is one of the file's, the comparison runs) when the app opens the slide.
//
//   format = "lecture"
//   title = "Week 3: all-reduce"
//   [[slide]]
//   file = "lessons/02_ring_vs_parameter_server.toml"   # relative to the lecture file
//   phase = 1          # 1-based; optional
//   step = 2.5         # or time = 400 (µs); optional
//   clock = "predicted"
//   compare = "phase:2"   # or an algorithm's name
//   arrange = "topology"  # or "algorithm", or "both": how the slide draws its scene (else its file's choice)
//   note = "Ask first: which one is faster?"
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/topology.h"

namespace collsim {

struct Slide {
  std::filesystem::path file;  // resolved: relative paths are taken from the lecture file's folder
  std::optional<int> phase;    // 1-based
  std::optional<double> step;  // steps done (2.5: half-way through step 3)
  std::optional<double> time_us;
  std::string clock;    // "", steps, measured or predicted
  std::string compare;  // "", an algorithm, or "phase:K" (compared_phase)
  std::string note;     // the teacher's words, shown under the caption
  std::optional<Arrangement> arrange;  // the scene by the algorithm or the topology; unset: the file's own choice
  std::string where;    // "lecture.toml:12:1: [[slide]] 3", for messages about it
  // Whether the comparison is a run of its own (an algorithm), not another phase.
  bool compares_algorithm() const { return !compare.empty() && !compare.starts_with("phase:"); }
};

struct Lecture {
  std::string source;
  std::string title;
  std::vector<Slide> slides;  // at least one
};

// A comparison (a slide's `compare`, the app's --compare) names another phase of the lesson,
// "phase:K" with K from 1, or an algorithm. The phase, 0-based; nullopt for an algorithm's
// name; InputError for a malformed "phase:…" (the message says how to write it).
std::optional<std::size_t> compared_phase(std::string_view compare);
// "phase:K" for phase k (0-based), as compared_phase reads it.
std::string phase_comparison(std::size_t k);

// Whether `path` names a lecture file (its name ends in .lecture.toml).
bool is_lecture_file(const std::filesystem::path& path);

// Reads and checks a lecture file; an InputError "FILE:LINE:COLUMN: key 'slide[2].clock': …" otherwise.
Lecture load_lecture(const std::filesystem::path& path);

}  // namespace collsim
