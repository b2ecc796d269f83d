// Output files appear whole or not at all: each is written under a temporary name in its
// destination folder and renamed into place only when every file of the set is complete.
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

// Throws InputError unless `folder` exists (creating it if needed) and is writable.
void ensure_writable_folder(const std::filesystem::path& folder, std::string_view flag);

}  // namespace collsim
