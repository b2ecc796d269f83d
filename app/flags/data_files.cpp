#include "app/flags/data_files.h"

#include <cstdlib>
#include <system_error>

namespace collsim::flags {

namespace {

namespace fs = std::filesystem;

// BIN/../share/collsim for the running binary, as `cmake --install` and the package lay it
// out (the install's prefix is wherever the binary is: the .tar.gz unpacks anywhere).
fs::path installed_share_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec || self.empty()) return {};
  return self.parent_path().parent_path() / "share" / "collsim";
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::vector<fs::path> data_dir_candidates() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("COLLSIM_DATA_DIR"); env && *env) dirs.emplace_back(env);
  if (fs::path share = installed_share_dir(); !share.empty()) dirs.push_back(std::move(share));
  std::error_code ec;
  if (fs::path here = fs::current_path(ec); !ec) dirs.push_back(std::move(here));
#ifdef COLLSIM_SOURCE_DIR
  dirs.emplace_back(COLLSIM_SOURCE_DIR);
#endif
  return dirs;
}

fs::path data_dir() {
  const std::vector<fs::path> dirs = data_dir_candidates();
  std::error_code ec;
  for (const fs::path& d : dirs)
    if (fs::is_directory(d / "scenarios", ec)) return d;
  return dirs.empty() ? fs::path(".") : dirs.back();
}

FoundFile find_input_file(const std::string& typed) {
  if (typed.empty() || is_file(typed)) return {typed, false};
  const fs::path name(typed);
  if (name.is_absolute()) return {typed, false};
  std::vector<fs::path> names{name};
  if (!name.has_extension()) names.emplace_back(typed + ".toml");
  for (const fs::path& dir : data_dir_candidates())
    for (const fs::path& base : {dir / "scenarios", dir})
      for (const fs::path& n : names)
        if (is_file(base / n)) return {(base / n).lexically_normal().string(), true};
  return {typed, false};
}

}  // namespace collsim::flags
