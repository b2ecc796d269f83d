// Reading a whole file the user named (a scenario, a schedule file, a trace) into a string,
// with one set of messages for what can go wrong, so every loader refuses a bad path alike.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace collsim {

// The file's bytes, unchanged. `what` names the file in messages ("scenario file"); throws
// InputError "PATH: cannot read the WHAT: it is a folder", "PATH: cannot read the WHAT:
// REASON" (the system's: a missing file, no permission) or "PATH: error while reading the
// WHAT" (it opened but reading failed).
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace collsim
