// Where collsim's shared files are — scenarios/ (lessons, lectures, exercises), assets/ and
// the live page's collsim-live.js — for the command line and the app alike, whether they run
// from a build tree or installed (`cmake --install`, the .deb: <prefix>/share/collsim), and
// how a lesson typed by name (`collsim run lessons/01_ring_allreduce`) becomes its file.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace collsim::flags {

// The folders that may hold scenarios/, in the order they are searched: $COLLSIM_DATA_DIR,
// the installed share folder beside this binary (BIN/../share/collsim), the current folder,
// and the source tree this binary was built from (last, so an installed copy wins).
std::vector<std::filesystem::path> data_dir_candidates();

// The first candidate holding a scenarios/ folder (the last candidate when none does).
std::filesystem::path data_dir();

// An input file as typed. `typed` itself when it exists; otherwise the same name under each
// data folder's scenarios/, then under the data folder itself, each with ".toml" added when
// the name has no extension — the first that exists. `found_by_name` says whether it came
// from the search (front ends then say which file they read). Nothing found: `typed` as
// given, so that the reader's own error names what the user typed.
struct FoundFile {
  std::string path;
  bool found_by_name = false;
};
FoundFile find_input_file(const std::string& typed);

}  // namespace collsim::flags
