#include "sim/core/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  // A folder opens fine on Linux and then reads as nothing; say what it is instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot read the {}: it is a folder", path.string(), what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the {}: {}", path.string(), what, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: error while reading the {}", path.string(), what));
  return text.str();
}

}  // namespace collsim
