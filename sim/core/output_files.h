// Output files appear whole or not at all: each is written under a temporary name in its
// destination folder and renamed into place only when every file of the set is complete.
//
// And they never destroy what they should not (issue 21): only regular files are written
// (a device, a FIFO, a socket or a folder at the path is refused); a symlink is followed and
// its target written (the link stays); an existing file keeps its mode, and a read-only one
// is refused; a temporary is removed on every failure and on SIGINT/SIGTERM/SIGHUP.
#pragma once
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace collsim {

class OutputFileSet {
 public:
  OutputFileSet() = default;
  OutputFileSet(const OutputFileSet&) = delete;
  OutputFileSet& operator=(const OutputFileSet&) = delete;
  ~OutputFileSet();  // removes the temporary files of an uncommitted set

  // Writes `bytes` to a temporary file next to `path`. Throws InputError naming the path
  // when the folder is missing or unwritable or the disk is full.
  void stage(const std::filesystem::path& path, std::span<const std::byte> bytes);
  void stage(const std::filesystem::path& path, std::string_view text);
  // Renames every staged file into place.
  void commit();

 private:
  struct Staged {
    std::filesystem::path temporary, final;
  };
  std::vector<Staged> staged_;
};

// Before any work: InputError naming `flag` unless `path` can be written as above (its
// folder exists and is writable; nothing but a writable regular file is there). Empty: refused.
void check_output_path(std::string_view flag, const std::string& path);
// Whether two output paths name one file (after resolving symlinks, "." and ".."), whether
// or not it exists yet.
bool same_output_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Throws InputError unless `folder` exists (creating it if needed) and is writable.
void ensure_writable_folder(const std::filesystem::path& folder, std::string_view flag);

}  // namespace collsim
