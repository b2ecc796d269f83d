// Lecture files (sim/lesson/lecture.h): slides read with their paths resolved, and every
// mistake named by file, line and key.
#include <doctest/doctest.h>

#include <fstream>

#include "sim/lesson/lecture.h"
#include "test_support.h"

namespace collsim {
namespace {

// Each test case gets its own folder: ctest runs the cases of this file at the same time.
struct LectureDir {
  testing::TempDir scratch{"lecture"};
  std::filesystem::path dir = scratch.path();
  LectureDir() {
    std::filesystem::create_directories(dir / "lessons");
    std::ofstream(dir / "lessons" / "a.toml") << "format = 1\n";
  }
  std::filesystem::path write(const std::string& text) const {
    const auto path = dir / "week.lecture.toml";
    std::ofstream(path) << text;
    return path;
  }
  std::string error(const std::string& text) const {
    return testing::input_error([&] { load_lecture(write(text)); });
  }
};

}  // namespace

TEST_CASE("lecture: slides with their files resolved from the lecture's folder") {
  const LectureDir d;
  const Lecture l = load_lecture(d.write(R"(format = "lecture"
title = "Week 3"
[[slide]]
file = "lessons/a.toml"
[[slide]]
file = "lessons/a.toml"
phase = 2
step = 2.5
clock = "predicted"
compare = "phase:1"
note = "Ask first."
[[slide]]
file = "lessons/a.toml"
time = 400
arrange = "topology"
)"));
  CHECK(l.title == "Week 3");
  REQUIRE(l.slides.size() == 3);
  CHECK(l.slides[0].file == d.dir / "lessons" / "a.toml");
  CHECK_FALSE(l.slides[0].phase);
  CHECK(l.slides[1].phase == 2);
  CHECK(l.slides[1].step == 2.5);
  CHECK(l.slides[1].clock == "predicted");
  CHECK(l.slides[1].compare == "phase:1");
  CHECK(l.slides[1].note == "Ask first.");
  CHECK(l.slides[2].time_us == 400);
  CHECK_FALSE(l.slides[1].arrange);  // the file's own choice
  CHECK(l.slides[2].arrange == Arrangement::topology);
  CAPTURE(l.slides[1].where);
  CHECK(l.slides[1].where.find("week.lecture.toml:5:1: slide[1]") != std::string::npos);
  CHECK(is_lecture_file(d.dir / "week.lecture.toml"));
  CHECK_FALSE(is_lecture_file(d.dir / "lessons" / "a.toml"));
}

TEST_CASE("lecture: mistakes name the file, line and key") {
  const LectureDir d;
  const std::string head = "format = \"lecture\"\n[[slide]]\n";
  CHECK(d.error("title = \"x\"\n").find("week.lecture.toml:1:1: key 'format' is missing") != std::string::npos);
  CHECK(d.error("format = \"lecture\"\n").find("key 'slide' is missing") != std::string::npos);
  CHECK(d.error(head + "phase = 1\n").find("slide[0]: key 'file' is missing") != std::string::npos);
  CHECK(d.error(head + "file = \"nope.toml\"\n").find("week.lecture.toml:3:8: key 'slide[0].file': no such file") != std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\nclock = \"wall\"\n").find("key 'slide[0].clock': unknown clock 'wall'") !=
        std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\nstep = 1\ntime = 3\n").find("key 'slide[0].time': give a slide a step or a time") !=
        std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\nphase = 0\n").find("key 'slide[0].phase': must be between 1") != std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\nstep = -1\n").find("key 'slide[0].step': must be >= 0") != std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\nslide = 3\n").find("key 'slide[0].slide': unknown key") != std::string::npos);
  CHECK(d.error(head + "file = \"week.lecture.toml\"\n").find("not another lecture") != std::string::npos);
  CHECK(d.error("format = \"lecture\"\n[[slide]\n").find("not valid TOML") != std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\narrange = \"wires\"\n").find("key 'slide[0].arrange': unknown arrangement 'wires'") !=
        std::string::npos);
  CHECK(d.error(head + "file = \"lessons/a.toml\"\ncompare = \"phase:x\"\n").find("key 'slide[0].compare': compare with phase:x: write phase:K") !=
        std::string::npos);
}

TEST_CASE("lecture: a comparison names a phase (phase:K) or an algorithm") {
  CHECK(compared_phase("phase:3") == 2);
  CHECK(compared_phase("ring") == std::nullopt);
  CHECK(phase_comparison(2) == "phase:3");
  for (const char* bad : {"phase:", "phase:0", "phase:-1", "phase:2x", "phase:99999999999"})
    CHECK(testing::input_error([&] { (void)compared_phase(bad); }).find("write phase:K") != std::string::npos);
}

}  // namespace collsim
