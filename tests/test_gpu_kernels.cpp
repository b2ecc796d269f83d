// GPU test: the CUDA kernels must give exactly the bytes the host loops give, for every
// dtype and op, odd sizes and misaligned device pointers. Exit codes: 0 pass, 1 mismatch or
// error, 77 skipped (no CUDA device, or built without CUDA).
//
// Inputs include NaNs (both signs, several payloads), infinities, subnormals and values
// that overflow when combined: the functors canonicalise arithmetic NaNs and never flush
// subnormals, so even then host and device must agree bit for bit.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "kernels/cuda_api.h"
#include "kernels/host_loops.h"
#include "kernels/reduce_functors.h"

using namespace collsim;

namespace {

const char* dtype_name(DataType dt) {
  static const char* const names[] = {"f32", "f64", "f16", "bf16", "i32", "i64"};
  return names[static_cast<int>(dt)];
}
const char* op_name(ReduceOp op) {
  static const char* const names[] = {"sum", "prod", "min", "max", "avg"};
  return names[static_cast<int>(op)];
}

// A NaN of type T with random sign and payload (quiet or signalling).
template <class T>
T random_nan(std::mt19937_64& rng) {
  using U = typename detail::BitsOf<T>::type;
  constexpr int kBits = 8 * sizeof(T);
  constexpr int kMantBits = std::is_same_v<T, double> ? 52 : std::is_same_v<T, float> ? 23
                            : std::is_same_v<T, f16> ? 10 : 7;
  constexpr U kSign = static_cast<U>(U{1} << (kBits - 1));
  constexpr U kMant = static_cast<U>((U{1} << kMantBits) - 1);
  constexpr U kExp = static_cast<U>(~(kSign | kMant));
  U bits = static_cast<U>((static_cast<U>(rng()) & (kSign | kMant)) | kExp);
  if ((bits & kMant) == 0) bits |= 1;
  return detail::bit_cast<T>(bits);
}

// A value of type T: moderate, tiny (subnormal), large, NaN or infinite.
template <class T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const int kind = static_cast<int>(rng() % 16);
  if constexpr (is_wrapping_int_v<T>) {
    return kind < 8 ? static_cast<T>(rng()) : static_cast<T>(unit(rng) * 1000);
  } else {
    if (kind == 3) return random_nan<T>(rng);
    float x = unit(rng) * 100.0f;
    if (kind == 0) x = unit(rng) * 1e-40f;  // float subnormal, f16 zero/subnormal
    if (kind == 1) x = unit(rng) * 60000.0f;  // f16 overflow territory when combined
    if (kind == 2) x = unit(rng) * 1e6f;  // inf in f16
    if (kind == 4) x = rng() % 2 ? INFINITY : -INFINITY;
    if constexpr (is_half_v<T>) {
      return detail::half_from_float<T>(x);
    } else if constexpr (std::is_same_v<T, double>) {
      // Some products overflow, some results are double subnormals.
      return static_cast<double>(x) * (kind == 5 ? 1e300 : kind == 6 ? 1e-310 : 1.0);
    } else {
      return x;
    }
  }
}

std::vector<unsigned char> make_input(std::size_t count, DataType dt, std::uint64_t seed) {
  std::vector<unsigned char> out(count * dtype_size(dt));
  std::mt19937_64 rng(seed);
  dispatch_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < count; ++i) {
      const T v = random_value<T>(rng);
      std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return out;
}

int g_checks = 0;
int g_failures = 0;

void compare(const std::vector<unsigned char>& want, const std::vector<unsigned char>& got,
             DataType dt, const std::string& what) {
  ++g_checks;
  if (want == got) return;
  ++g_failures;
  const std::size_t e = dtype_size(dt);
  std::size_t first = 0;
  while (std::memcmp(want.data() + first * e, got.data() + first * e, e) == 0) ++first;
  std::uint64_t w = 0, g = 0;
  std::memcpy(&w, want.data() + first * e, e);
  std::memcpy(&g, got.data() + first * e, e);
  std::printf("MISMATCH %s: element %zu host 0x%llx device 0x%llx\n", what.c_str(), first,
              static_cast<unsigned long long>(w), static_cast<unsigned long long>(g));
}

const std::size_t kSizes[] = {1, 7, 65, 1000003};
// (dst, src) element offsets from a 256-byte boundary: aligned, equally misaligned (vector
// body after a scalar head), and differently misaligned (all scalar).
const std::pair<std::size_t, std::size_t> kMisalign[] = {{0, 0}, {1, 1}, {3, 3},
                                                         {1, 0}, {0, 3}, {2, 5}};

void check_reduce() {
  for (DataType dt : kAllDataTypes)
    for (ReduceOp op : kAllReduceOps)
      for (std::size_t n : kSizes)
        for (auto [dm, sm] : kMisalign) {
          const auto a = make_input(n, dt, n * 31 + 1);
          const auto b = make_input(n, dt, n * 37 + 2);
          auto want = a, got = a;
          host_reduce(want.data(), b.data(), n, dt, op);
          cuda::reduce_on_device(got.data(), b.data(), n, dt, op, dm, sm);
          compare(want, got, dt,
                  std::string("reduce ") + dtype_name(dt) + " " + op_name(op) + " n=" +
                      std::to_string(n) + " misalign=" + std::to_string(dm) + "," +
                      std::to_string(sm));
        }
}

void check_copy() {
  for (DataType dt : kAllDataTypes)
    for (std::size_t n : kSizes)
      for (auto [dm, sm] : kMisalign) {
        const auto a = make_input(n, dt, n * 41 + 3);
        std::vector<unsigned char> got(a.size(), 0);
        cuda::copy_on_device(got.data(), a.data(), n, dt, dm, sm);
        compare(a, got, dt,
                std::string("copy ") + dtype_name(dt) + " n=" + std::to_string(n) +
                    " misalign=" + std::to_string(dm) + "," + std::to_string(sm));
      }
}

// Fill-identity and divide through the general API (device buffers, stream, events).
void check_fill_and_divide() {
  const cuda::Stream stream = cuda::stream_create();
  const cuda::Event start = cuda::event_create(), stop = cuda::event_create();
  for (DataType dt : kAllDataTypes) {
    const std::size_t n = 1000003, bytes = n * dtype_size(dt);
    void* dev = cuda::device_alloc(bytes + 64);
    char* p = static_cast<char*>(dev) + dtype_size(dt);  // misaligned to 16 bytes
    for (ReduceOp op : kAllReduceOps) {
      std::vector<unsigned char> want(bytes), got(bytes);
      host_fill_identity(want.data(), n, dt, op);
      cuda::launch_fill_identity(p, n, dt, op, stream);
      cuda::memcpy_async(got.data(), p, bytes, stream);
      cuda::stream_synchronize(stream);
      compare(want, got, dt, std::string("fill_identity ") + dtype_name(dt) + " " + op_name(op));
    }
    for (std::int64_t divisor : {1, 3, 7, 1024}) {
      const auto a = make_input(n, dt, 77);
      auto want = a;
      std::vector<unsigned char> got(bytes);
      host_divide(want.data(), n, dt, divisor);
      cuda::memcpy_async(p, a.data(), bytes, stream);
      cuda::event_record(start, stream);
      cuda::launch_divide(p, n, dt, divisor, stream);
      cuda::event_record(stop, stream);
      cuda::memcpy_async(got.data(), p, bytes, stream);
      cuda::stream_synchronize(stream);
      (void)cuda::event_elapsed_ms(start, stop);
      compare(want, got, dt,
              std::string("divide ") + dtype_name(dt) + " by " + std::to_string(divisor));
    }
    cuda::device_free(dev);
  }
  cuda::event_destroy(start);
  cuda::event_destroy(stop);
  cuda::stream_destroy(stream);
}

}  // namespace

int main() {
  const int devices = cuda::device_count();
  if (devices == 0) {
    std::printf("SKIP: no CUDA device (built with CUDA: %s)\n",
                cuda::built_with_cuda() ? "yes" : "no");
    return 77;
  }
  std::printf("CUDA devices: %d, device 0: %s\n", devices, cuda::device_name(0).c_str());
  try {
    cuda::set_device(0);
    check_reduce();
    check_copy();
    check_fill_and_divide();
  } catch (const std::exception& e) {
    std::printf("ERROR: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %d checks, %d mismatches\n", g_failures ? "FAIL" : "PASS", g_checks,
              g_failures);
  return g_failures ? 1 : 0;
}
