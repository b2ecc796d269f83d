// Models for the training patterns (lesson.h): parameters per layer, input side first.
//
// ResNet-34's layer sizes are computed from its architecture (He et al. 2016, Table 1, as
// torchvision builds it), so that a reader can check each figure against the paper:
//   stem:   conv 7x7, 3 -> 64 (no bias), batch norm
//   stages: 3, 4, 6, 3 BasicBlocks of widths 64, 128, 256, 512; a block is
//           conv 3x3 + bn, conv 3x3 + bn, and on the first block of stages 2-4 (where
//           the width doubles and the resolution halves) a 1x1 "downsample" conv + bn
//           on the shortcut
//   head:   global average pool (no parameters), fully connected 512 -> 1000 with bias
// Convolutions have no bias (the batch norm that follows has one); a batch norm has a
// scale and a shift per channel (its running statistics are buffers, not parameters).
// One "layer" here is a convolution with its batch norm, or the fully connected layer:
// 1 + 2 * 16 + 3 + 1 = 37 layers, 21,797,672 parameters, as torchvision's resnet34().
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "sim/lesson/lesson.h"

namespace collsim {
namespace {

// A k x k convolution from `in` to `out` channels without bias, and the batch norm after it.
std::uint64_t conv_bn(std::uint64_t k, std::uint64_t in, std::uint64_t out) { return k * k * in * out + 2 * out; }

}  // namespace

std::uint64_t ModelLayers::total() const {
  return std::accumulate(parameters.begin(), parameters.end(), std::uint64_t{0});
}

ModelLayers resnet34() {
  constexpr std::uint64_t kClasses = 1000;
  constexpr int kBlocks[] = {3, 4, 6, 3};
  constexpr std::uint64_t kWidths[] = {64, 128, 256, 512};

  ModelLayers m;
  m.name = "resnet34";
  auto add = [&m](std::string name, std::uint64_t parameters) {
    m.layer_names.push_back(std::move(name));
    m.parameters.push_back(parameters);
  };

  add("conv1", conv_bn(7, 3, 64));
  std::uint64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::uint64_t width = kWidths[stage];
    for (int block = 0; block < kBlocks[stage]; ++block) {
      const std::string prefix = fmt::format("layer{}.{}", stage + 1, block);
      add(prefix + ".conv1", conv_bn(3, in, width));
      add(prefix + ".conv2", conv_bn(3, width, width));
      // The shortcut needs a projection where the block changes the width (stages 2-4).
      if (in != width) add(prefix + ".downsample", conv_bn(1, in, width));
      in = width;
    }
  }
  add("fc", in * kClasses + kClasses);
  return m;
}

}  // namespace collsim
