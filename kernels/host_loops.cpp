// Host element loops. Each public function switches on dtype and op once, then runs a
// fully typed loop; the f32/f64/i32/i64 sum/min/max loops vectorise at -O3.
#include "kernels/host_loops.h"

#include <cstring>
#include <stdexcept>

#include "kernels/reduce_functors.h"

// The loops must give the same bits as the CUDA kernels: NaN tests (x != x), signed zeros
// and subnormals all need IEEE semantics.
#if defined(__FAST_MATH__)
#error "kernels/host_loops.cpp must not be compiled with -ffast-math"
#endif

namespace collsim {
namespace {

template <class T>
bool element_aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

// The hot loop. __restrict promises no overlap, so GCC vectorises without a runtime
// overlap check (the vector loads and stores need no particular alignment).
template <class T, class Op>
void reduce_typed(T* __restrict dst, const T* __restrict src, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = op(dst[i], src[i]);
}

// dst == src is allowed (x = op(x, x)); kept separate because __restrict would be a lie.
template <class T, class Op>
void reduce_in_place(T* p, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) p[i] = op(p[i], p[i]);
}

template <class T>
T load(const unsigned char* p) {
  T v{};
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Pointers not aligned to the element: a T* would be undefined behaviour (and GCC may
// assume element alignment when it peels for vector alignment), so go through memcpy.
// Reading both operands before the store also makes dst == src safe here.
template <class T, class Op>
void reduce_bytes(unsigned char* dst, const unsigned char* src, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = i * sizeof(T);
    store(dst + at, op(load<T>(dst + at), load<T>(src + at)));
  }
}

template <class T, class Op>
void reduce_any(void* dst, const void* src, std::size_t n, Op op) {
  if (!element_aligned<T>(dst) || !element_aligned<T>(src))
    reduce_bytes<T>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), n,
                    op);
  else if (dst == src)
    reduce_in_place(static_cast<T*>(dst), n, op);
  else
    reduce_typed(static_cast<T*>(dst), static_cast<const T*>(src), n, op);
}

template <class T, class Op>
void reduce_copy_typed(T* __restrict dst, const T* __restrict a, const T* __restrict b, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = op(a[i], b[i]);
}

template <class T, class Op>
void reduce_copy_bytes(unsigned char* dst, const unsigned char* a, const unsigned char* b, std::size_t n, Op op) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = i * sizeof(T);
    store(dst + at, op(load<T>(a + at), load<T>(b + at)));
  }
}

template <class T, class Op>
void reduce_copy_any(void* dst, const void* a, const void* b, std::size_t n, Op op) {
  if (dst == a)
    reduce_any<T>(dst, b, n, op);
  else if (!element_aligned<T>(dst) || !element_aligned<T>(a) || !element_aligned<T>(b))
    reduce_copy_bytes<T>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(a),
                         static_cast<const unsigned char*>(b), n, op);
  else
    reduce_copy_typed(static_cast<T*>(dst), static_cast<const T*>(a), static_cast<const T*>(b), n, op);
}

// Fill and divide are not on the reduction's hot path; the memcpy form handles any
// alignment and still compiles to plain loads and stores.
template <class T>
void fill_bytes(unsigned char* dst, std::size_t n, T value) {
  for (std::size_t i = 0; i < n; ++i) store(dst + i * sizeof(T), value);
}

template <class T>
void divide_bytes(unsigned char* dst, std::size_t n, std::int64_t divisor) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = i * sizeof(T);
    store(dst + at, divide_by(load<T>(dst + at), divisor));
  }
}

}  // namespace

void host_copy(void* dst, const void* src, std::size_t count, DataType dt) {
  if (count == 0 || dst == src) return;  // memcpy with null or identical pointers is UB
  std::memcpy(dst, src, count * dtype_size(dt));
}

void host_reduce(void* dst, const void* src, std::size_t count, DataType dt, ReduceOp op) {
  if (count == 0) return;
  dispatch_dtype(dt, [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    dispatch_op(op, [&](auto op_tag) {
      reduce_any<T>(dst, src, count, op_functor_t<T, decltype(op_tag)::value>{});
    });
  });
}

void host_reduce_copy(void* dst, const void* a, const void* b, std::size_t count, DataType dt, ReduceOp op) {
  if (count == 0) return;
  dispatch_dtype(dt, [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    dispatch_op(op, [&](auto op_tag) {
      reduce_copy_any<T>(dst, a, b, count, op_functor_t<T, decltype(op_tag)::value>{});
    });
  });
}

void host_fill_identity(void* dst, std::size_t count, DataType dt, ReduceOp op) {
  if (count == 0) return;
  dispatch_dtype(dt, [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    fill_bytes(static_cast<unsigned char*>(dst), count, reduce_identity<T>(op));
  });
}

void host_divide(void* dst, std::size_t count, DataType dt, std::int64_t divisor) {
  if (divisor <= 0) throw std::invalid_argument("host_divide: divisor must be positive");
  if (count == 0) return;
  dispatch_dtype(dt, [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    divide_bytes<T>(static_cast<unsigned char*>(dst), count, divisor);
  });
}

}  // namespace collsim
