#include "app/views/shading.h"

#include <algorithm>
#include <cmath>

namespace collsim::gui::shading {

palette::Rgb rank_fill(int rank, int total_ranks) {
  return stripes(total_ranks) ? palette::rank(rank) : palette::Rgb{110, 140, 180};
}

palette::Rgb fill(int have, int target) {
  const float f = target > 0 ? static_cast<float>(have) / static_cast<float>(target) : 0.0f;
  if (f >= 1.0f) return {60, 200, 170};
  const auto c = [](float v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255)); };
  return {c(0.20f + 0.10f * f), c(0.30f + 0.45f * f), c(0.45f + 0.30f * f)};
}

std::vector<palette::Rgb> fill_ramp(int steps) {
  std::vector<palette::Rgb> out;
  steps = std::max(steps, 2);
  for (int i = 0; i < steps; ++i) out.push_back(fill(i, steps - 1));
  return out;
}

std::uint64_t eventual_ranks(const ViewModel& vm, std::uint32_t cell) { return vm.buffers().ranks_ever(cell); }

std::vector<palette::Rgb> stripe_colours(std::uint64_t eventual, const RankSet& have) {
  std::vector<palette::Rgb> out;
  for (int q = 0; q < 64; ++q)
    if (eventual >> q & 1) out.push_back(have.has(q) ? palette::rank(q) : palette::missing_slot);
  return out;
}

}  // namespace collsim::gui::shading
