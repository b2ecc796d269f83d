// Models for the training patterns (lesson.h): layers, input side first.
//
// ResNet-34's layers are computed from its architecture (He et al. 2016, Table 1, as
// torchvision's torchvision/models/resnet.py builds it), so that a reader can check each
// figure against the paper:
//   stem:   conv 7x7 stride 2, 3 -> 64 (no bias), batch norm, max pool 3x3 stride 2
//   stages: 3, 4, 6, 3 BasicBlocks of widths 64, 128, 256, 512; a block is
//           conv 3x3 + bn, conv 3x3 + bn, and on the first block of stages 2-4 (where
//           the width doubles and the resolution halves, stride 2) a 1x1 "downsample"
//           conv + bn on the shortcut
//   head:   global average pool (no parameters), fully connected 512 -> 1000 with bias
// Convolutions have no bias (the batch norm that follows has one); a batch norm has a
// scale and a shift per channel (weight, bias) and three buffers: running_mean and
// running_var per channel, and num_batches_tracked (one int64).
// One "layer" here is a convolution with its batch norm, or the fully connected layer:
// 1 + 2 * 16 + 3 + 1 = 37 layers, 110 tensors, 21,797,672 parameters, as torchvision's
// resnet34(). A layer's multiply-adds are its convolution's (out_h * out_w * out_c * in_c
// * k * k) or the fully connected layer's (512 * 1000): 3.6 G for a 224 x 224 image, the
// "3.6 x 10^9 FLOPs" of the paper's Table 1 (which counts multiply-adds).
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "sim/lesson/lesson.h"

namespace collsim {
namespace {

// The output side of a convolution or pooling: floor((in + 2 pad - k) / stride) + 1.
int out_side(int in, int k, int stride, int pad) { return (in + 2 * pad - k) / stride + 1; }

struct Builder {
  ModelLayers m;

  // A k x k convolution from `in` to `out` channels (no bias) producing side x side, with
  // the batch norm after it, as one layer named `layer`; its tensors are `conv`.weight,
  // `bn`.weight and `bn`.bias.
  void conv_bn(const std::string& layer, const std::string& conv, const std::string& bn, std::uint64_t k,
               std::uint64_t in, std::uint64_t out, int side) {
    const std::size_t at = m.parameters.size();  // the layer these tensors belong to
    std::vector<ModelTensor> tensors = {{conv + ".weight", k * k * in * out, at, 4, false},
                                        {bn + ".weight", out, at, 1, true},
                                        {bn + ".bias", out, at, 1, true}};
    const auto s = static_cast<double>(side);
    add(layer, std::move(tensors), s * s * static_cast<double>(out * in * k * k), 2 * out, 1);
  }

  void add(std::string layer, std::vector<ModelTensor> tensors, double macs, std::uint64_t float_buffers,
           std::uint64_t int64_buffers) {
    std::uint64_t parameters = 0;
    for (const ModelTensor& t : tensors) parameters += t.elements;
    m.layer_names.push_back(std::move(layer));
    m.parameters.push_back(parameters);
    m.tensors.push_back(std::move(tensors));
    m.macs.push_back(macs);
    m.float_buffers.push_back(float_buffers);
    m.int64_buffers.push_back(int64_buffers);
  }
};

}  // namespace

std::uint64_t ModelLayers::total() const {
  return std::accumulate(parameters.begin(), parameters.end(), std::uint64_t{0});
}

double ModelLayers::total_macs() const { return std::accumulate(macs.begin(), macs.end(), 0.0); }

std::uint64_t ModelLayers::buffer_bytes() const {
  return 4 * std::accumulate(float_buffers.begin(), float_buffers.end(), std::uint64_t{0}) +
         8 * std::accumulate(int64_buffers.begin(), int64_buffers.end(), std::uint64_t{0});
}

std::vector<ModelTensor> layer_tensors(const ModelLayers& m, std::size_t layer) {
  if (layer < m.tensors.size() && !m.tensors[layer].empty()) return m.tensors[layer];
  const std::string name = layer < m.layer_names.size() ? m.layer_names[layer] : fmt::format("layer{}", layer + 1);
  return {{name + ".weight", m.parameters[layer], layer}};
}

ModelLayers resnet34(int image_size) {
  constexpr std::uint64_t kClasses = 1000;
  constexpr int kBlocks[] = {3, 4, 6, 3};
  constexpr std::uint64_t kWidths[] = {64, 128, 256, 512};

  Builder b;
  b.m.name = "resnet34";
  b.m.image_size = image_size;
  int side = out_side(image_size, 7, 2, 3);
  b.conv_bn("conv1", "conv1", "bn1", 7, 3, 64, side);
  side = out_side(side, 3, 2, 1);  // max pool
  std::uint64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const std::uint64_t width = kWidths[stage];
    for (int block = 0; block < kBlocks[stage]; ++block) {
      const std::string prefix = fmt::format("layer{}.{}", stage + 1, block);
      // The first block of stages 2-4 halves the resolution and needs a projection on its shortcut.
      const bool first_of_wider = in != width;
      const int block_side = first_of_wider ? out_side(side, 3, 2, 1) : side;
      b.conv_bn(prefix + ".conv1", prefix + ".conv1", prefix + ".bn1", 3, in, width, block_side);
      b.conv_bn(prefix + ".conv2", prefix + ".conv2", prefix + ".bn2", 3, width, width, block_side);
      if (first_of_wider)
        b.conv_bn(prefix + ".downsample", prefix + ".downsample.0", prefix + ".downsample.1", 1, in, width,
                  out_side(side, 1, 2, 0));
      side = block_side;
      in = width;
    }
  }
  const std::size_t fc = b.m.parameters.size();
  b.add("fc", {{"fc.weight", in * kClasses, fc, 2, false}, {"fc.bias", kClasses, fc, 1, false}}, static_cast<double>(in * kClasses), 0, 0);
  return std::move(b.m);
}

}  // namespace collsim
