#include "sim/core/output_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {

OutputFileSet::~OutputFileSet() {
  std::error_code ignored;
  for (const Staged& s : staged_) std::filesystem::remove(s.temporary, ignored);
}

void OutputFileSet::stage(const std::filesystem::path& path, std::string_view text) {
  stage(path, std::as_bytes(std::span(text.data(), text.size())));
}

void OutputFileSet::stage(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp-{}-{}", ::getpid(), staged_.size());
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (!f) throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  staged_.push_back({temporary, path});
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !written)
    throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(written ? errno : write_errno)));
}

void OutputFileSet::commit() {
  // Refuse before the first rename whatever would make a later one fail, so that a set
  // lands whole or not at all.
  for (const Staged& s : staged_)
    if (std::filesystem::is_directory(s.final))
      throw InputError(fmt::format("cannot write {}: a folder of that name exists", s.final.string()));
  for (const Staged& s : staged_) {
    std::error_code ec;
    std::filesystem::rename(s.temporary, s.final, ec);
    if (ec) throw InputError(fmt::format("cannot write {}: {}", s.final.string(), ec.message()));
  }
  staged_.clear();
}

void ensure_writable_folder(const std::filesystem::path& folder, std::string_view flag) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    throw InputError(fmt::format("{} {}: cannot create the folder: {}", flag, folder.string(),
                                 ec ? ec.message() : "a file of that name exists"));
  if (::access(folder.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{} {}: the folder is not writable", flag, folder.string()));
}

}  // namespace collsim
