#include "app/views/drawn_shapes.h"

#include <fmt/format.h>

namespace collsim::gui {

bool overlap(const Box& a, const Box& b, float slack) {
  return a.x + slack < b.right() && b.x + slack < a.right() && a.y + slack < b.bottom() && b.y + slack < a.bottom();
}

bool contains(const Box& outer, const Box& inner) {
  return inner.x >= outer.x - 0.5f && inner.y >= outer.y - 0.5f && inner.right() <= outer.right() + 0.5f &&
         inner.bottom() <= outer.bottom() + 0.5f;
}

std::string_view to_string(ShapeKind k) {
  switch (k) {
    case ShapeKind::disc: return "disc";
    case ShapeKind::hub: return "hub";
    case ShapeKind::packet: return "packet";
    case ShapeKind::label: return "label";
    case ShapeKind::row: return "row";
    case ShapeKind::caption: return "caption";
  }
  return "?";
}

namespace {

bool same_box(const Box& a, const Box& b) { return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h; }

// Whether a label may not cover this shape: another label, a disc, a packet, or a hub it
// is not written in.
bool obstacle_for(const DrawnShape& label, const DrawnShape& s) {
  if (s.side != label.side) return false;
  switch (s.kind) {
    case ShapeKind::label:
    case ShapeKind::disc:
    case ShapeKind::packet: return true;
    case ShapeKind::hub: return !label.within || !same_box(*label.within, s.box);
    default: return false;
  }
}

}  // namespace

std::vector<std::string> overlapping_labels(const std::vector<DrawnShape>& shapes) {
  std::vector<std::string> found;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const DrawnShape& a = shapes[i];
    if (a.kind != ShapeKind::label) continue;
    for (std::size_t j = 0; j < shapes.size(); ++j) {
      const DrawnShape& b = shapes[j];
      if (j == i || (b.kind == ShapeKind::label && j < i) || !obstacle_for(a, b)) continue;  // a pair of labels once
      if (overlap(a.box, b.box)) found.push_back(fmt::format("'{}' over {} '{}'", a.name, to_string(b.kind), b.name));
    }
  }
  return found;
}

std::vector<std::string> cut_texts(const std::vector<DrawnShape>& shapes) {
  std::vector<std::string> found;
  for (const DrawnShape& s : shapes)
    if (s.kind == ShapeKind::label && s.within && !contains(*s.within, s.box)) found.push_back(fmt::format("'{}' cut by its box", s.name));
  return found;
}

}  // namespace collsim::gui
