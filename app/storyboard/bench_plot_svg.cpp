#include "app/storyboard/bench_plot_svg.h"

#include <iterator>

#include <fmt/format.h>

#include "app/storyboard/storyboard.h"
#include "app/views/palette.h"

namespace collsim::storyboard {
namespace {

namespace pal = gui::palette;
using gui::PlotAnchor;
using gui::PlotLabel;
using gui::PlotMarker;

constexpr const char* kFont = "DejaVu Sans, Verdana, Arial, sans-serif";  // the storyboard's
const std::string kSeriesDash = fmt::format("{:g} {:g}", gui::kSeriesDash[0], gui::kSeriesDash[1]);
const std::string kCrossoverDash = fmt::format("{:g} {:g}", gui::kCrossoverDash[0], gui::kCrossoverDash[1]);

std::string num(float v) { return fmt::format("{:.1f}", v); }

const char* anchor(PlotAnchor a) {
  return a == PlotAnchor::start ? "start" : a == PlotAnchor::middle ? "middle" : "end";
}

void text(std::string& o, const PlotLabel& l, std::string_view extra = "") {
  if (l.text.empty()) return;
  if (l.boxed)
    fmt::format_to(std::back_inserter(o),
                   "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" fill-opacity=\"0.88\"/>\n",
                   num(l.box_x), num(l.box_y), num(l.box_w), num(l.box_h), pal::hex(pal::background));
  fmt::format_to(std::back_inserter(o), "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\" text-anchor=\"{}\"{}{}{}>{}</text>\n",
                 num(l.x), num(l.y), num(l.size), pal::hex(l.colour), anchor(l.anchor),
                 l.bold ? " font-weight=\"bold\"" : "", extra.empty() ? "" : " ", extra, xml_escape(l.text));
}

// A marker of `shape` centred on (x, y), `r` its half-size; hollow: outlined, filled with the background.
void marker(std::string& o, PlotMarker shape, float x, float y, float r, pal::Rgb c, bool hollow) {
  const std::string fill = hollow ? pal::hex(pal::background) : pal::hex(c);
  const std::string style = fmt::format("fill=\"{}\" stroke=\"{}\" stroke-width=\"2\"", fill, pal::hex(c));
  const std::vector<gui::PlotOffset> outline = gui::marker_outline(shape);
  if (outline.empty()) {  // the circle
    fmt::format_to(std::back_inserter(o), "<circle class=\"marker\" cx=\"{}\" cy=\"{}\" r=\"{}\" {}/>\n", num(x), num(y),
                   num(r), style);
    return;
  }
  std::string d;
  for (const gui::PlotOffset& p : outline) d += fmt::format("{}{},{}", d.empty() ? "" : " ", num(x + p.dx * r), num(y + p.dy * r));
  fmt::format_to(std::back_inserter(o), "<polygon class=\"marker\" points=\"{}\" {}/>\n", d, style);
}

void axes(std::string& o, const gui::BenchPlot& p) {
  o += "<g class=\"axes\">\n";
  fmt::format_to(std::back_inserter(o), "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", num(p.left),
                 num(p.top), num(p.right - p.left), num(p.bottom - p.top), pal::hex(pal::panel));
  for (const gui::PlotTick& t : p.x_ticks)
    fmt::format_to(std::back_inserter(o), "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"{4}\"/>\n",
                   num(t.at), num(p.top), num(p.bottom), pal::hex(pal::grid), t.label.empty() ? "0.8\" stroke-opacity=\"0.45" : "1.2");
  for (const gui::PlotTick& t : p.y_ticks)
    fmt::format_to(std::back_inserter(o), "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"{4}\"/>\n",
                   num(p.left), num(p.right), num(t.at), pal::hex(pal::grid), t.label.empty() ? "0.8\" stroke-opacity=\"0.45" : "1.2");
  for (const PlotLabel& l : p.tick_labels) text(o, l, "class=\"tick\"");
  fmt::format_to(std::back_inserter(o), "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>\n",
                 num(p.left), num(p.top), num(p.right - p.left), num(p.bottom - p.top), pal::hex(pal::text_dim));
  text(o, p.x_title, "class=\"axis-title\"");
  text(o, p.y_title, fmt::format("class=\"axis-title\" transform=\"rotate(-90 {} {})\"", num(p.y_title.x), num(p.y_title.y)));
  o += "</g>\n";
}

void series(std::string& o, const gui::BenchPlot& p, const gui::PlotSeries& s) {
  const bool predicted = s.kind == gui::PlotSeriesKind::predicted;
  const char* kind = predicted ? "predicted" : s.kind == gui::PlotSeriesKind::native ? "native" : "measured";
  fmt::format_to(std::back_inserter(o), "<g class=\"series {}\" data-series=\"{}\" data-algorithm=\"{}\">\n<title>{}</title>\n",
                 kind, xml_escape(s.id), xml_escape(s.algorithm), xml_escape(s.label));
  for (const auto& run : s.runs) {
    if (run.size() < 2) continue;
    std::string d;
    for (const gui::PlotPoint& pt : run) d += fmt::format("{}{} {}", d.empty() ? "M" : " L", num(pt.x), num(pt.y));
    fmt::format_to(std::back_inserter(o),
                   "<path class=\"line\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\"{}/>\n", d,
                   pal::hex(s.colour), num(predicted ? p.line_width - 0.5f : p.line_width),
                   s.dashed ? fmt::format(" stroke-dasharray=\"{}\"", kSeriesDash) : "");
  }
  for (const auto& run : s.runs)
    for (const gui::PlotPoint& pt : run)
      marker(o, s.marker, pt.x, pt.y, predicted ? p.marker_size - 1.5f : p.marker_size, s.colour, predicted);
  o += "</g>\n";
}

void crossover(std::string& o, const gui::BenchPlot& p, const gui::PlotCrossover& c) {
  const bool predicted = c.clock == SweepClock::predicted;
  fmt::format_to(std::back_inserter(o), "<g class=\"crossover {}\" data-below=\"{}\" data-above=\"{}\">\n",
                 predicted ? "predicted" : "measured", xml_escape(c.below_algorithm), xml_escape(c.above_algorithm));
  fmt::format_to(std::back_inserter(o), "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2.5\"{4}/>\n",
                 num(c.x), num(p.top), num(p.bottom), pal::hex(pal::text_dim),  // not the MPI series' light neutral
                 predicted ? fmt::format(" stroke-dasharray=\"{}\"", kCrossoverDash) : "");
  for (const PlotLabel& l : c.labels) text(o, l);
  o += "</g>\n";
}

void legend(std::string& o, const gui::BenchPlot& p) {
  o += "<g class=\"legend\">\n";
  for (const gui::PlotLegendEntry& e : p.legend) {
    fmt::format_to(std::back_inserter(o), "<g class=\"legend-entry\"{}>\n",
                   e.series_id.empty() ? "" : fmt::format(" data-series=\"{}\"", xml_escape(e.series_id)));
    fmt::format_to(std::back_inserter(o), "<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"{4}\"{5}/>\n",
                   num(e.x), num(e.x + 44), num(e.y), pal::hex(e.colour), e.markers ? num(p.line_width) : "2.5",
                   e.dashed ? fmt::format(" stroke-dasharray=\"{}\"", e.markers ? "9 5" : "6 5") : "");
    if (e.markers) marker(o, e.marker, e.x + 22, e.y, e.hollow ? p.marker_size - 1.5f : p.marker_size, e.colour, e.hollow);
    for (const PlotLabel& l : e.labels) text(o, l);
    o += "</g>\n";
  }
  for (const PlotLabel& n : p.notes) text(o, n, "class=\"note\"");
  o += "</g>\n";
}

}  // namespace

std::string bench_plot_svg(const gui::BenchPlot& p) {
  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"{2}\">\n"
      "<title>{3}</title>\n",
      p.width, p.height, kFont, xml_escape(p.title.text));
  fmt::format_to(std::back_inserter(o), "<rect width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", p.width, p.height,
                 pal::hex(pal::background));
  text(o, p.title, "class=\"title\"");
  for (const PlotLabel& l : p.subtitle) text(o, l, "class=\"subtitle\"");
  axes(o, p);
  // The series, then the crossovers over them (a thin line, and labels on a dark box).
  o += "<g class=\"all-series\">\n";
  for (const gui::PlotSeries& s : p.series) series(o, p, s);
  o += "</g>\n<g class=\"crossovers\">\n";
  for (const gui::PlotCrossover& c : p.crossovers) crossover(o, p, c);
  text(o, p.unlabelled, "class=\"note\"");
  o += "</g>\n";
  if (p.marked) {  // the run's own size: a solid light line, over the series
    fmt::format_to(std::back_inserter(o),
                   "<g class=\"mark\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"/>\n",
                   num(p.mark_x), num(p.top), num(p.bottom), pal::hex(pal::text));
    text(o, p.mark_label);
    o += "</g>\n";
  }
  text(o, p.empty, "class=\"empty\"");
  legend(o, p);
  o += "</svg>\n";
  return o;
}

}  // namespace collsim::storyboard
