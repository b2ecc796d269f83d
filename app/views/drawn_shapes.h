// What the window drew where this frame, as plain data (no ImGui): the scene's discs, hubs,
// packets and labels, the buffers' rows and the caption, in screen pixels. The views record
// them as they draw; the layout tests read them (the script's states, app/desktop/script.h),
// and the scene's label placement avoids what is already there. Nothing draws from them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collsim::gui {

struct Box {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
  float area() const { return w * h; }
};
// Whether a and b share more than `slack` pixels each way (touching edges do not overlap).
bool overlap(const Box& a, const Box& b, float slack = 0.5f);
// Whether `inner` lies within `outer` (to half a pixel).
bool contains(const Box& outer, const Box& inner);

enum class ShapeKind : std::uint8_t { disc, hub, packet, label, row, caption };
std::string_view to_string(ShapeKind k);

struct DrawnShape {
  ShapeKind kind = ShapeKind::label;
  std::string name;          // "rank 3", "↑0 B ↓8 MiB of rank 3", "rank 2 out", "+1"
  Box box;
  std::optional<Box> within;  // a text's box: where it must fit whole (its hub, its panel)
  int side = 0;               // comparing: 0 left, 1 right
  int rank = -1;              // a disc's, a row's, a rank's label: the rank
  bool output = false;        // a row: an output buffer's
};

// Every label whose box overlaps another label, a disc, a hub it does not belong to, or a
// packet: "'↑0 B' over packet '+2'". Labels inside a hub (within == the hub's box) belong to it.
std::vector<std::string> overlapping_labels(const std::vector<DrawnShape>& shapes);
// Every text that does not fit its `within` box: "'PCIe switch' cut by its box".
std::vector<std::string> cut_texts(const std::vector<DrawnShape>& shapes);

}  // namespace collsim::gui
