// The MPI backend's API in a build without MPI (mpi_backend.h): --backend mpi says what is
// missing, and nothing else here is ever reached (the front ends ask why_no_mpi first).
#include <stdexcept>

#include "sim/exec/mpi_backend.h"

#include "sim/core/errors.h"

namespace collsim {
namespace {
[[noreturn]] void unavailable() { throw std::logic_error("the MPI backend is not built (why_no_mpi)"); }
}  // namespace

std::string why_no_mpi() {
  return "this build of collsim has no MPI backend (CMake found no MPI when it was configured: install Debian's "
         "openmpi-bin and libopenmpi-dev, as scripts/setup does, and configure again)";
}
bool launched_by_mpi_launcher() { return false; }
std::string mpi_library_version() { unavailable(); }
const MpiPlace& mpi_place() {
  static const MpiPlace alone;
  return alone;
}
std::uint64_t mpi_sum(std::uint64_t local) { return local; }
double mpi_max(double local) { return local; }
std::string mpi_share(const std::string& from_rank0) { return from_rank0; }
void mpi_stop_all_if(const std::string& rank0_problem) {
  if (!rank0_problem.empty()) throw InputError(rank0_problem);
}
std::vector<std::string> mpi_gather_text(const std::string& mine) { return {mine}; }
void mpi_collect_bytes(std::span<const std::byte> mine, const CollectedBytes& on_rank0) { on_rank0(0, mine); }
std::vector<double> mpi_ping_pong_ns(int, int, std::size_t, int) { unavailable(); }
void mpi_idle_barrier() {}
std::unique_ptr<Backend> make_mpi_backend(MpiBackendOptions) { unavailable(); }
NativeMpiTime time_native_collective(const Schedule&, std::vector<RankBuffers>&, int, int) { unavailable(); }
}  // namespace collsim
