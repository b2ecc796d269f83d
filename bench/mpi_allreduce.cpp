// The MPI library's own all-reduce, the anchor for collsim's schedules on --backend mpi
// (docs/performance.md, docs/distributed.md): MPI_Allreduce on f32 sum, out of place, with
// inputs and a check as collsim's (every rank's input element i is (rank + 1) + i % 7; the
// sum is checked exactly), timed as nccl-tests times it: warm-up iterations, then each
// iteration between two barriers, rank 0's clock; prints nccl-tests' columns.
//
//   mpirun -np 4 build/bench/mpi_allreduce --count 16M --iterations 20
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::uint64_t parse_count(const char* text) {
  char* end = nullptr;
  std::uint64_t v = std::strtoull(text, &end, 10);
  if (*end == 'K') v <<= 10;
  if (*end == 'M') v <<= 20;
  if (*end == 'G') v <<= 30;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::uint64_t count = 16 << 20;
  int iterations = 20, warmup = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--count") count = parse_count(argv[i + 1]);
    else if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    else if (flag == "--warmup") warmup = std::atoi(argv[i + 1]);
  }
  std::vector<float> in(count), out(count);
  for (std::uint64_t i = 0; i < count; ++i) in[i] = static_cast<float>((rank + 1) + static_cast<int>(i % 7));
  std::vector<double> times;
  for (int k = 0; k < warmup + iterations; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (k >= warmup) times.push_back(us);
  }
  // Exact: small integers sum exactly in f32.
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const double want = size * (size + 1) / 2.0 + size * static_cast<double>(i % 7);
    if (out[i] != static_cast<float>(want)) ++wrong;
  }
  std::uint64_t all_wrong = 0;
  MPI_Reduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const double bytes = static_cast<double>(count) * sizeof(float);
    const double algbw = bytes / median / 1e3;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string library(version, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n"));
    std::printf("# MPI_Allreduce (%s), %d ranks, f32 sum, out of place; median of %d iterations after %d warm-up\n",
                library.c_str(), size, iterations, warmup);
    std::printf("#  %12s %12s %10s %10s %10s %8s\n", "size (B)", "count", "time (us)", "algbw", "busbw", "#wrong");
    std::printf("   %12.0f %12llu %10.1f %10.2f %10.2f %8llu\n", bytes, static_cast<unsigned long long>(count), median, algbw,
                algbw * 2.0 * (size - 1) / size, static_cast<unsigned long long>(all_wrong));
  }
  MPI_Finalize();
  return all_wrong == 0 ? 0 : 1;
}
