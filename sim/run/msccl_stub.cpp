// MSCCL import and export (msccl_import.h, msccl_export.h) in a build without pugixml (the
// WebAssembly build of the live page, which links only header-only libraries, or a machine
// where CMake found no pugixml): every entry point says so, with the way out.
#include <fmt/format.h>

#include "sim/core/errors.h"
#include "sim/run/msccl_export.h"
#include "sim/run/msccl_import.h"

namespace collsim {
namespace {
[[noreturn]] void unavailable(const std::string& what) { throw InputError(fmt::format("{}: {}", what, why_no_msccl())); }
}  // namespace

std::string why_no_msccl() {
#ifdef __EMSCRIPTEN__
  return "this build of collsim (the web page's WebAssembly one) cannot read or write MSCCL algorithm files: it links "
         "only header-only libraries, and the XML parser (pugixml) is a compiled one; use the collsim command";
#else
  return "this build of collsim cannot read or write MSCCL algorithm files: CMake found no pugixml when it was "
         "configured (install Debian's libpugixml-dev, as scripts/setup does, and configure again)";
#endif
}
ScheduleFile parse_msccl(std::string_view, const std::string& source) { unavailable(source); }
ScheduleFile load_msccl_file(const std::filesystem::path& path) { unavailable(path.string()); }
MscclExport export_msccl(const Schedule&, const MscclExportOptions&) { unavailable("export-msccl"); }
std::uint64_t natural_export_count(CollectiveSpec, std::string_view, const AlgorithmOptions&) {
  unavailable("export-msccl");
}

}  // namespace collsim
