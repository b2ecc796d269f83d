// The bodies of the CUDA element kernels, as plain COLLSIM_HD functions of (first thread,
// thread count). The kernels in cuda/copy_reduce.cu call them with the grid's index and
// stride; the host tests call them for every emulated thread, so the index arithmetic and
// the vector/scalar split are tested even on a machine without a GPU.
//
// Copy and reduce move 16 bytes per access where they can: the range is split into a
// scalar head (up to the first 16-byte boundary of dst), a body of 16-byte vectors and a
// scalar tail. That needs dst and src to be equally misaligned modulo 16; otherwise the
// whole range is scalar. Pointers must be aligned to the element size.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/dtype.h"
#include "kernels/reduce_functors.h"

#if defined(__CUDA_ARCH__)
#define COLLSIM_UNROLL _Pragma("unroll")
#else
#define COLLSIM_UNROLL
#endif

namespace collsim::device {

inline constexpr std::size_t kVecBytes = 16;
template <class T>
inline constexpr std::size_t kLanes = kVecBytes / sizeof(T);

// 16 bytes, aligned like CUDA's uint4, so that the device loads and stores are single
// 128-bit instructions.
struct alignas(16) Bytes16 {
  std::uint32_t word[4];
};

// One vector seen as its elements.
template <class T>
union Vec16 {
  Bytes16 raw;
  T lane[kLanes<T>];
};

// On the device a 16-byte-aligned dereference is one vector access; on the host (tests)
// memcpy avoids strict-aliasing trouble.
COLLSIM_HD Bytes16 load16(const unsigned char* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const Bytes16*>(p);
#else
  Bytes16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
#endif
}
COLLSIM_HD void store16(unsigned char* p, const Bytes16& v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<Bytes16*>(p) = v;
#else
  std::memcpy(p, &v, sizeof v);
#endif
}

// Elements [0, head) and [head + nvec * lanes, n) are scalar; the middle is nvec vectors.
struct Split {
  std::size_t head;
  std::size_t nvec;
  std::size_t n;
};

template <class T>
COLLSIM_HD constexpr Split split_range(std::uintptr_t dst, std::uintptr_t src, std::size_t n) {
  if ((dst - src) % kVecBytes != 0) return {n, 0, n};  // never both aligned: all scalar
  std::size_t head = ((kVecBytes - dst % kVecBytes) % kVecBytes) / sizeof(T);
  if (head > n) head = n;
  return {head, (n - head) / kLanes<T>, n};
}

template <class T>
COLLSIM_HD constexpr std::size_t scalar_count(const Split& sp) {
  return sp.n - sp.nvec * kLanes<T>;
}

// Element index of the j-th scalar element (the head first, then the tail).
template <class T>
COLLSIM_HD constexpr std::size_t scalar_index(const Split& sp, std::size_t j) {
  return j < sp.head ? j : sp.head + sp.nvec * kLanes<T> + (j - sp.head);
}

// The split for dst[i] = op(a[i], b[i]): vectors only where all three are equally
// misaligned modulo 16.
template <class T>
COLLSIM_HD constexpr Split split_range3(std::uintptr_t dst, std::uintptr_t a, std::uintptr_t b, std::size_t n) {
  if ((dst - a) % kVecBytes != 0) return {n, 0, n};
  return split_range<T>(dst, b, n);
}

// dst[i] = op(a[i], b[i]) for this thread's share of the split range (NCCL's reduce-copy:
// the local operand a and the received b, the sum written once). dst may be a.
template <class T, class Op>
COLLSIM_HD void reduce_copy_range(T* dst, const T* a, const T* b, const Split& sp, Op op, std::size_t first,
                                  std::size_t stride) {
  auto* dv = reinterpret_cast<unsigned char*>(dst + sp.head);
  const auto* av = reinterpret_cast<const unsigned char*>(a + sp.head);
  const auto* bv = reinterpret_cast<const unsigned char*>(b + sp.head);
  for (std::size_t i = first; i < sp.nvec; i += stride) {
    Vec16<T> x, y;
    x.raw = load16(av + i * kVecBytes);
    y.raw = load16(bv + i * kVecBytes);
    COLLSIM_UNROLL
    for (std::size_t k = 0; k < kLanes<T>; ++k) x.lane[k] = op(x.lane[k], y.lane[k]);
    store16(dv + i * kVecBytes, x.raw);
  }
  for (std::size_t j = first; j < scalar_count<T>(sp); j += stride) {
    const std::size_t i = scalar_index<T>(sp, j);
    dst[i] = op(a[i], b[i]);
  }
}

// dst[i] = op(dst[i], src[i]) for this thread's share of the split range: the reduce-copy
// with the destination as its own first operand.
template <class T, class Op>
COLLSIM_HD void reduce_range(T* dst, const T* src, const Split& sp, Op op, std::size_t first,
                             std::size_t stride) {
  reduce_copy_range(dst, dst, src, sp, op, first, stride);
}

// dst[i] = src[i] for this thread's share of the split range.
template <class T>
COLLSIM_HD void copy_range(T* dst, const T* src, const Split& sp, std::size_t first,
                           std::size_t stride) {
  auto* dv = reinterpret_cast<unsigned char*>(dst + sp.head);
  const auto* sv = reinterpret_cast<const unsigned char*>(src + sp.head);
  for (std::size_t i = first; i < sp.nvec; i += stride)
    store16(dv + i * kVecBytes, load16(sv + i * kVecBytes));
  for (std::size_t j = first; j < scalar_count<T>(sp); j += stride) {
    const std::size_t i = scalar_index<T>(sp, j);
    dst[i] = src[i];
  }
}

template <class T>
COLLSIM_HD void fill_range(T* dst, std::size_t n, T value, std::size_t first,
                           std::size_t stride) {
  for (std::size_t i = first; i < n; i += stride) dst[i] = value;
}

template <class T>
COLLSIM_HD void divide_range(T* dst, std::size_t n, std::int64_t divisor, std::size_t first,
                             std::size_t stride) {
  for (std::size_t i = first; i < n; i += stride) dst[i] = divide_by(dst[i], divisor);
}

}  // namespace collsim::device
