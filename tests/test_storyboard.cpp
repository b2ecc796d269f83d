// The SVG storyboard: every frame is well-formed XML (checked by the small parser below: no
// new dependency) and holds what the step shows: one packet per transfer of the step, one
// cell per cell of every drawn buffer row; index.html plays every frame without anything
// from outside.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/views/view_model.h"
#include "app/storyboard/storyboard.h"
#include "sim/schedule/algorithm.h"
#include "sim/run/custom_schedule.h"
#include "sim/core/errors.h"
#include "sim/lesson/program.h"
#include "sim/lesson/scenario.h"

using namespace collsim;

namespace {

// --- a minimal XML well-formedness checker -------------------------------------------------
// Elements, attributes (quoted, unique), character and entity references, comments, the
// prolog, proper nesting and a single root: enough to know a browser will parse the file.

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
};

struct Xml {
  std::string error;  // empty: well-formed
  std::vector<Element> elements;
  std::string text;  // all character data, concatenated
};

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'));
}

class XmlReader {
 public:
  explicit XmlReader(std::string_view s) : s_(s) {}

  Xml read() {
    Xml x;
    try {
      if (s_.substr(0, 5) == "<?xml") i_ = find("?>") + 2;
      std::vector<std::string> open;
      int roots = 0;
      while (i_ < s_.size()) {
        const std::size_t lt = s_.find('<', i_);
        const std::string_view chars = s_.substr(i_, lt == std::string_view::npos ? std::string_view::npos : lt - i_);
        check_text(chars);
        if (open.empty() && chars.find_first_not_of(" \t\r\n") != std::string_view::npos)
          fail("text outside the root element");
        x.text += chars;
        if (lt == std::string_view::npos) break;
        i_ = lt;
        if (s_.substr(i_, 4) == "<!--") {
          i_ = find("-->") + 3;
        } else if (s_.substr(i_, 2) == "</") {
          i_ += 2;
          const std::string name = read_name();
          expect('>');
          if (open.empty() || open.back() != name) fail("</" + name + "> closes nothing open");
          open.pop_back();
        } else {
          ++i_;
          if (open.empty() && ++roots > 1) fail("a second root element");
          bool empty = false;
          x.elements.push_back(read_tag(empty));
          if (!empty) open.push_back(x.elements.back().name);
        }
      }
      if (!open.empty()) fail("<" + open.back() + "> is never closed");
      if (roots != 1) fail("no root element");
    } catch (const std::string& e) {
      x.error = e;
    }
    return x;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw what + " at byte " + std::to_string(i_); }
  std::size_t find(std::string_view what) const {
    const std::size_t at = s_.find(what, i_);
    if (at == std::string_view::npos) fail("missing " + std::string(what));
    return at;
  }
  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string read_name() {
    const std::size_t begin = i_;
    while (i_ < s_.size() && name_char(s_[i_], i_ == begin)) ++i_;
    if (i_ == begin) fail("expected a name");
    return std::string(s_.substr(begin, i_ - begin));
  }
  // Every '&' starts a reference: &amp; &lt; &gt; &quot; &apos; &#N; &#xH;
  void check_text(std::string_view t) const {
    for (std::size_t a = t.find('&'); a != std::string_view::npos; a = t.find('&', a + 1)) {
      const std::size_t semi = t.find(';', a);
      if (semi == std::string_view::npos) fail("'&' without ';'");
      const std::string_view ref = t.substr(a + 1, semi - a - 1);
      static const std::set<std::string_view> named{"amp", "lt", "gt", "quot", "apos"};
      const bool numeric = ref.size() > 1 && ref[0] == '#' &&
                           ref.find_first_not_of(ref[1] == 'x' ? "0123456789abcdefABCDEF" : "0123456789",
                                                 ref[1] == 'x' ? 2 : 1) == std::string_view::npos;
      if (!named.count(ref) && !numeric) fail("unknown reference &" + std::string(ref) + ";");
    }
  }
  Element read_tag(bool& empty) {
    Element e{read_name(), {}};
    for (;;) {
      skip_space();
      if (s_.substr(i_, 2) == "/>") {
        i_ += 2, empty = true;
        return e;
      }
      if (i_ < s_.size() && s_[i_] == '>') {
        ++i_;
        return e;
      }
      const std::string attr = read_name();
      skip_space();
      expect('=');
      skip_space();
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) fail("attribute " + attr + " is not quoted");
      const char quote = s_[i_++];
      const std::size_t end = s_.find(quote, i_);
      if (end == std::string_view::npos) fail("attribute " + attr + " never ends");
      const std::string_view value = s_.substr(i_, end - i_);
      if (value.find('<') != std::string_view::npos) fail("'<' in attribute " + attr);
      check_text(value);
      if (!e.attrs.emplace(attr, std::string(value)).second) fail("attribute " + attr + " given twice");
      i_ = end + 1;
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

Xml parse_xml(std::string_view text) { return XmlReader(text).read(); }

std::vector<const Element*> with_class(const Xml& x, const std::string& cls) {
  std::vector<const Element*> found;
  for (const Element& e : x.elements)
    if (auto it = e.attrs.find("class"); it != e.attrs.end() && it->second == cls) found.push_back(&e);
  return found;
}

// --- what to draw -------------------------------------------------------------------------

// A trace of a schedule that never ran: the steps clock only (like the GUI's tests).
Trace trace_of(Collective c, const std::string& algorithm, int ranks, std::uint64_t count,
               AlgorithmOptions options = {}) {
  Trace t;
  t.request.spec.collective = c;
  t.request.spec.ranks = ranks;
  t.request.spec.count = count;
  t.request.algorithm = algorithm;
  t.request.options = resolve_options(t.request.spec, algorithm, options);
  t.schedule = build_schedule(t.request.spec, algorithm, t.request.options);
  return t;
}

// Every frame: well-formed, one packet per transfer of its step (and those transfers), one
// cell per cell of every drawn row.
void check_frames(const gui::ViewModel& vm) {
  const Schedule& s = vm.schedule();
  for (int k = 0; k <= vm.step_count(); ++k) {
    CAPTURE(k);
    const Xml x = parse_xml(storyboard::frame_svg(vm, k));
    REQUIRE(x.error == "");
    REQUIRE(!x.elements.empty());
    CHECK(x.elements[0].name == "svg");
    std::multiset<std::string> want, got;
    for (std::size_t i = 0; i < s.transfers.size(); ++i)
      if (s.transfers[i].step == k - 1) want.insert(std::to_string(i));
    for (const Element* p : with_class(x, "packet")) got.insert(p->attrs.at("data-transfer"));
    CHECK(got == want);
    std::map<std::pair<std::string, std::string>, std::uint32_t> cells;
    for (const Element* c : with_class(x, "cell")) ++cells[{c->attrs.at("data-rank"), c->attrs.at("data-buffer")}];
    std::size_t rows = 0;
    for (const gui::BufferRow& row : vm.buffers().rows()) {
      if (row.optional) continue;  // an input next to the rank's other buffers: not drawn
      ++rows;
      CHECK(cells[{std::to_string(row.rank), std::string(to_string(row.buffer))}] == row.cell_count);
    }
    CHECK(cells.size() == rows);
    CHECK(static_cast<int>(with_class(x, "rank").size()) == s.total_ranks);
    CHECK(with_class(x, "caption").size() == 1);
  }
}

}  // namespace

TEST_CASE("the XML checker accepts well-formed text and refuses the usual mistakes") {
  CHECK(parse_xml("<?xml version=\"1.0\"?>\n<a x=\"1\"><b y='2'/>t &amp; &#39; &#x3c;</a>\n").error == "");
  CHECK(parse_xml("<a><b></a></b>").error != "");
  CHECK(parse_xml("<a x=1/>").error != "");
  CHECK(parse_xml("<a>x & y</a>").error != "");
  CHECK(parse_xml("<a x=\"<\"/>").error != "");
  CHECK(parse_xml("<a/><b/>").error != "");
  CHECK(parse_xml("<a x=\"1\" x=\"2\"/>").error != "");
  CHECK(parse_xml("<a>").error != "");
}

TEST_CASE("a ring all-reduce storyboard: a start frame and one per step, with its packets and every rank's cells") {
  const gui::ViewModel vm(trace_of(Collective::all_reduce, "ring", 4, 8));
  check_frames(vm);
  const Xml step1 = parse_xml(storyboard::frame_svg(vm, 1));
  CHECK(with_class(step1, "packet").size() == 4);
  CHECK(with_class(step1, "cell").size() == 16);  // 4 ranks x 4 chunks
  for (const Element* p : with_class(step1, "packet")) CHECK(p->attrs.at("data-action") == "reduce_copy");
  const Xml last = parse_xml(storyboard::frame_svg(vm, vm.step_count()));
  for (const Element* c : with_class(last, "cell"))
    CHECK(c->attrs.at("data-holds") == "0 1 2 3");  // every chunk complete
  CHECK(storyboard::frame_caption(vm, 0).find("Start") == 0);
  CHECK(storyboard::frame_caption(vm, 1).find("Step 1/6: reduce-scatter 1/3") == 0);
  CHECK(storyboard::frame_file(vm, 0) == "step-00.svg");
  CHECK(storyboard::frame_file(vm, 6) == "step-06.svg");
}

TEST_CASE(
    "storyboards of other shapes: a parameter server's scratch, Bruck's local rotation, many ranks, a hand-written "
    "schedule") {
  AlgorithmOptions two_servers;
  two_servers.servers = 2;
  check_frames(gui::ViewModel(trace_of(Collective::all_reduce, "parameter_server", 4, 8, two_servers)));
  check_frames(gui::ViewModel(trace_of(Collective::all_gather, "bruck", 5, 3)));
  check_frames(gui::ViewModel(trace_of(Collective::all_reduce, "rabenseifner", 20, 40)));
  AlgorithmOptions custom;
  custom.schedule_file =
      (std::filesystem::path(COLLSIM_SOURCE_DIR) / "scenarios/exercises/solutions/ring_allreduce.schedule.toml")
          .string();
  check_frames(gui::ViewModel(trace_of(Collective::all_reduce, std::string(kCustomAlgorithm), 4, 10, custom)));
}

TEST_CASE("index.html plays every frame with buttons and arrow keys, and needs nothing from outside") {
  Trace t = trace_of(Collective::all_gather, "ring", 3, 2);
  t.scenario_title = "Quotes \"and\" <tags> & 'ampersands'";
  t.scenario_description = "Line one.\nLine </script> two.";
  const gui::ViewModel vm(std::move(t));
  const storyboard::Storyboard b = storyboard::make_storyboard(vm);
  REQUIRE(b.frames.size() == 3);  // the start and 2 steps
  for (const storyboard::Frame& f : b.frames) {
    CHECK(b.index_html.find("\"" + f.file + "\"") != std::string::npos);       // in the script's list
    CHECK(b.index_html.find("href=\"" + f.file + "\"") != std::string::npos);  // and as a plain link
    CHECK(parse_xml(f.svg).error == "");
    CHECK(f.svg.find("Quotes &quot;and&quot; &lt;tags&gt; &amp; &#39;ampersands&#39;") != std::string::npos);
  }
  CHECK(b.index_html.find("ArrowRight") != std::string::npos);
  CHECK(b.index_html.find("ArrowLeft") != std::string::npos);
  CHECK(b.index_html.find("id=\"next\"") != std::string::npos);
  CHECK(b.index_html.find("id=\"prev\"") != std::string::npos);
  CHECK(b.index_html.find("<script src") == std::string::npos);
  CHECK(b.index_html.find("http://") == std::string::npos);
  CHECK(b.index_html.find("https://") == std::string::npos);
  // The description may say "</script>": only the closing tag of the script itself is there.
  CHECK(b.index_html.find("</script>") == b.index_html.rfind("</script>"));
}

TEST_CASE("a storyboard refuses what it cannot draw legibly") {
  Schedule s;
  s.total_ranks = storyboard::kMaxRanks + 1;
  CHECK_THROWS_WITH_AS(storyboard::check_drawable(s, "big.json"), doctest::Contains("big.json: 65 ranks are too many"),
                       InputError);
  s.total_ranks = 4;
  s.step_labels.assign(storyboard::kMaxSteps + 1, "x");
  CHECK_THROWS_WITH_AS(storyboard::check_drawable(s, "long.json"), doctest::Contains("1001 steps"), InputError);
  CHECK(storyboard::xml_escape("a<b>&\"c'\x01") == "a&lt;b&gt;&amp;&quot;c&#39; ");
}

TEST_CASE("a lesson storyboard: a card per compute phase, each collective phase's steps drawn at the collective's own step") {
  const Scenario s = parse_scenario(R"(format = 2
title = "A lesson"
ranks = 4
[[phase]]
name = "backward"
compute = [10.0, 20.0, 0.0, 40.0]
[[phase]]
name = "reduce-scatter half"
collective = "all_reduce"
count = 8
steps = [1, 3]
[[phase]]
name = "all-gather half"
collective = "all_reduce"
count = 8
steps = [4, 6]
step_caption = "Rank {src} forwards chunk {chunk}."
)",
                                    "lesson.toml");
  ProgramResult p = prepare_program(s, true);
  predict_program(p, s, s.topology);
  const gui::ViewModel vm(make_trace(*p.phases[1].run));
  const std::vector<const gui::ViewModel*> views{nullptr, &vm, &vm};
  const storyboard::Storyboard b = storyboard::make_lesson_storyboard(s, p, lesson_facts(s, p), views);

  REQUIRE(b.frames.size() == 7);  // the card and the two phases' 3 steps each
  CHECK(b.frames[0].file == "phase-01-compute.svg");
  CHECK(b.frames[1].file == "phase-02-step-01.svg");
  CHECK(b.frames[4].file == "phase-03-step-01.svg");
  CHECK(b.frames[6].file == "phase-03-step-03.svg");
  for (const storyboard::Frame& f : b.frames) {
    CAPTURE(f.file);
    const Xml x = parse_xml(f.svg);
    REQUIRE(x.error == "");
    CHECK(with_class(x, "caption").size() == 1);
  }
  // The card: a row per rank with its compute time (rank 2 idle).
  const Xml card = parse_xml(b.frames[0].svg);
  const std::vector<const Element*> ranks = with_class(card, "rank");
  REQUIRE(ranks.size() == 4);
  CHECK(ranks[1]->attrs.at("data-us") == "20");
  CHECK(card.text.find("idle") != std::string::npos);
  // The all-gather phase's step 1 is the ring's step 4: its packets are the ring's transfers of step 4.
  const Xml step1 = parse_xml(b.frames[4].svg);
  std::set<std::string> packets;
  for (const Element* e : with_class(step1, "packet")) packets.insert(e->attrs.at("data-transfer"));
  CHECK(packets == std::set<std::string>{"12", "13", "14", "15"});
  // The phase's name, the step and its label (the app's caption line), then the file's own words.
  CHECK(b.frames[4].caption ==
        "all-gather half, step 1/3: all-gather 1/3: every rank forwards a finished chunk to its right neighbour. Rank 0 forwards chunk 1.");
  // index.html lists the phases, each linked to its first frame.
  CHECK(b.index_html.find("<a href=\"#0\">backward</a> (compute)") != std::string::npos);
  CHECK(b.index_html.find("<a href=\"#1\">reduce-scatter half</a> (all_reduce with ring, 3 steps)") != std::string::npos);
  CHECK(b.index_html.find("<a href=\"#4\">all-gather half</a> (all_reduce with ring, 3 steps)") != std::string::npos);
}
