#include "sim/lesson/lecture.h"

#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/core/text_file.h"
#include "sim/core/toml_fields.h"

namespace collsim {
namespace {

using toml_fields::Entry;
using toml_fields::Table;

constexpr std::string_view kFormat = "lecture format";

Slide read_slide(const Entry& at, const Table& t, const std::filesystem::path& folder) {
  t.only_keys({"file", "phase", "step", "time", "clock", "compare", "arrange", "note"});
  Slide s;
  s.where = fmt::format("{}:{}:{}: {}", at.file(), t.line(), t.column(), at.path());
  const std::optional<Entry> file = t.find("file");
  if (!file) throw InputError(fmt::format("{}: key 'file' is missing (the scenario, lesson or trace to show)", s.where));
  const std::filesystem::path named = file->string();
  s.file = named.is_absolute() ? named : folder / named;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(s.file, ec)) file->fail(fmt::format("no such file: {}", s.file.string()));
  if (is_lecture_file(s.file)) file->fail("a slide shows a scenario, lesson or trace, not another lecture");
  if (const auto e = t.find("phase")) s.phase = e->int32(1, 1 << 20);
  const std::optional<Entry> step = t.find("step"), time = t.find("time");
  if (step && time) time->fail("give a slide a step or a time, not both");
  if (step) s.step = step->number(false);
  if (time) s.time_us = time->number(false);
  if (const auto e = t.find("clock")) {
    s.clock = e->string();
    if (s.clock != "steps" && s.clock != "measured" && s.clock != "predicted")
      e->fail(fmt::format("unknown clock '{}' (use steps, measured or predicted)", s.clock));
  }
  if (const auto e = t.find("compare")) {
    s.compare = e->string();
    if (s.compare.empty()) e->fail("empty: an algorithm's name or phase:K (leave the key out to compare nothing)");
    try {
      (void)compared_phase(s.compare);
    } catch (const InputError& bad) {
      e->fail(bad.what());
    }
  }
  if (const auto e = t.find("arrange")) {
    s.arrange = parse_arrangement(e->string());
    if (!s.arrange) e->fail(fmt::format("unknown arrangement '{}' (use {})", e->string(), arrangement_names()));
  }
  if (const auto e = t.find("note")) s.note = e->string();
  return s;
}

}  // namespace

std::optional<std::size_t> compared_phase(std::string_view compare) {
  constexpr std::string_view prefix = "phase:";
  if (!compare.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = compare.substr(prefix.size());
  std::size_t k = 0;
  const bool number = !digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string_view::npos &&
                      (k = std::stoul(std::string(digits))) > 0;
  if (!number) throw InputError(fmt::format("compare with {}: write phase:K with K a phase number from 1", compare));
  return k - 1;
}

std::string phase_comparison(std::size_t k) { return fmt::format("phase:{}", k + 1); }

bool is_lecture_file(const std::filesystem::path& path) { return path.filename().string().ends_with(".lecture.toml"); }

Lecture load_lecture(const std::filesystem::path& path) {
  Lecture l;
  l.source = path.string();
  const toml::table doc = toml_fields::parse_toml(read_text_file(path, "lecture"), l.source);
  const Table top(l.source, "", doc, std::string(kFormat));
  top.only_keys({"format", "title", "slide"});
  const std::optional<Entry> format = top.find("format");
  if (!format) throw InputError(fmt::format("{}:1:1: key 'format' is missing: a lecture file starts with `format = \"lecture\"`", l.source));
  if (format->string() != "lecture") format->fail(fmt::format("expected \"lecture\", got \"{}\"", format->string()));
  if (const auto e = top.find("title")) l.title = e->string();
  const std::filesystem::path folder = path.parent_path();
  top.each_table("slide", [&](const Entry& at, const Table& t) { l.slides.push_back(read_slide(at, t, folder)); });
  if (l.slides.empty())
    throw InputError(fmt::format("{}:1:1: key 'slide' is missing: a lecture has at least one [[slide]] with a file", l.source));
  return l;
}

}  // namespace collsim
