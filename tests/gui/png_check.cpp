// Checks screenshots for the GUI tests, without a display:
//   gui_png_check nonblank A.png        A shows something: at least 5 % of its pixels differ
//                                       from its most common colour (the background), in at
//                                       least 16 distinct colours
//   gui_png_check differ A.png B.png    same size, and at least 0.2 % of the pixels differ
// Prints what it measured; exits 0 when the check holds, 1 when not, 2 on bad usage.
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include <stb_image.h>

namespace {

struct Image {
  int w = 0, h = 0;
  unsigned char* rgb = nullptr;
  explicit Image(const char* path) { rgb = stbi_load(path, &w, &h, nullptr, 3); }
  ~Image() { stbi_image_free(rgb); }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  unsigned pixel(long i) const { return rgb[3 * i] << 16 | rgb[3 * i + 1] << 8 | rgb[3 * i + 2]; }
  long size() const { return static_cast<long>(w) * h; }
};

int nonblank(const char* path) {
  const Image img(path);
  if (!img.rgb) return std::printf("%s: cannot read the PNG\n", path), 1;
  std::map<unsigned, long> counts;
  for (long i = 0; i < img.size(); ++i) ++counts[img.pixel(i)];
  long background = 0;
  for (const auto& [colour, n] : counts) background = n > background ? n : background;
  const double drawn = 1.0 - static_cast<double>(background) / static_cast<double>(img.size());
  std::printf("%s: %dx%d, %.1f%% of the pixels differ from the background, %zu colours\n", path, img.w, img.h,
              100 * drawn, counts.size());
  return drawn >= 0.05 && counts.size() >= 16 ? 0 : 1;
}

int differ(const char* a_path, const char* b_path) {
  const Image a(a_path), b(b_path);
  if (!a.rgb || !b.rgb) return std::printf("cannot read %s or %s\n", a_path, b_path), 1;
  if (a.w != b.w || a.h != b.h) return std::printf("sizes differ: %dx%d and %dx%d\n", a.w, a.h, b.w, b.h), 0;
  long n = 0;
  for (long i = 0; i < a.size(); ++i) n += a.pixel(i) != b.pixel(i) ? 1 : 0;
  const double f = static_cast<double>(n) / static_cast<double>(a.size());
  std::printf("%s and %s: %.2f%% of the pixels differ\n", a_path, b_path, 100 * f);
  return f >= 0.002 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "nonblank") == 0) return nonblank(argv[2]);
  if (argc == 4 && std::strcmp(argv[1], "differ") == 0) return differ(argv[2], argv[3]);
  std::fprintf(stderr, "usage: gui_png_check nonblank A.png | differ A.png B.png\n");
  return 2;
}
