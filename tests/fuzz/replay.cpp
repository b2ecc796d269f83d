// collsim_fuzz_replay TARGET PATH...: runs the fuzz target's check (fuzz_checks.h) over each
// file, and each file of each folder, named: the seed corpus and the regressions, in every
// build (tests/fuzz/CMakeLists.txt), so that a finding once fixed stays fixed even where
// there is no libFuzzer. Prints one line per file that fails and a count; exit 0 when every
// input passed, 1 when one did not (an escaping exception; a crash ends the run by itself),
// 2 for a wrong command line (an unknown target, a missing path, no input at all).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <typeinfo>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_checks.h"

namespace {

namespace fs = std::filesystem;

const collsim::fuzz::Target* find_target(std::string_view name) {
  for (const collsim::fuzz::Target& t : collsim::fuzz::targets())
    if (t.name == name) return &t;
  return nullptr;
}

// The files a path names, sorted (a folder: its regular files, not recursively; README.md
// and dotfiles are notes, not inputs).
std::vector<fs::path> inputs_of(const fs::path& path) {
  if (!fs::is_directory(path)) return {path};
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name != "README.md" && name.front() != '.') files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: collsim_fuzz_replay TARGET PATH...  (targets:");
    for (const collsim::fuzz::Target& t : collsim::fuzz::targets())
      std::fprintf(stderr, " %.*s", static_cast<int>(t.name.size()), t.name.data());
    std::fprintf(stderr, ")\n");
    return 2;
  }
  const collsim::fuzz::Target* target = find_target(argv[1]);
  if (!target) {
    std::fprintf(stderr, "collsim_fuzz_replay: unknown target '%s'\n", argv[1]);
    return 2;
  }
  int passed = 0, failed = 0;
  for (int i = 2; i < argc; ++i) {
    if (!fs::exists(argv[i])) {
      std::fprintf(stderr, "collsim_fuzz_replay: %s does not exist\n", argv[i]);
      return 2;
    }
    for (const fs::path& file : inputs_of(argv[i])) {
      try {
        target->check(contents(file));
        ++passed;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "FAILED %s: %s escaped: %s\n", file.c_str(), typeid(e).name(), e.what());
        ++failed;
      }
    }
  }
  std::printf("collsim_fuzz_replay %s: %d inputs passed, %d failed\n", argv[1], passed, failed);
  if (passed + failed == 0) {
    std::fprintf(stderr, "collsim_fuzz_replay: no inputs\n");
    return 2;
  }
  return failed == 0 ? 0 : 1;
}
