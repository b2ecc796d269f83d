// A host emulation of kernels/cuda_api.h, for testing the CUDA backend's host logic on
// machines without a GPU (tests/test_cuda_emulated.cpp). It is not a simulator of GPU
// speed; it checks what a real driver would reject and what only a real GPU would show:
//
// - Streams are queues. Nothing runs when issued: the work runs at synchronisation points,
//   one operation at a time from a random stream whose head is ready, so independent
//   streams interleave differently with every seed. A wait is ready once the event record
//   it captured (the event's latest record when the wait was issued) has run — CUDA's
//   rule — so a wait the backend forgot shows up as a wrong result or a deadlock.
// - Kernels and event records must be issued on the stream's device; kernels may touch
//   only their device's memory, pinned host memory, or a peer's after enable_peer_access;
//   elapsed time only between timing events of one device. Violations throw.
// - Device "memory" is host memory; kernels are the host loops; time is a counter that
//   advances by 1 us per operation run, so event times follow the order things ran.
//
// The test links this instead of collsim_kernels' own cuda_api object: it defines every
// function of cuda_api.h, so the linker never pulls that object out of the library.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

namespace collsim::cuda::emulator {

struct Config {
  int devices = 1;
  // Whether device `reader` may enable peer access to device `owner`'s memory.
  std::function<bool(int reader, int owner)> peer_allowed = [](int, int) { return true; };
  std::uint64_t seed = 1;  // of the stream interleaving
};

struct Stats {
  std::size_t kernels = 0;        // copy, reduce, fill and divide launches with elements
  std::size_t waits = 0;          // stream_wait_event calls
  std::size_t records = 0;        // event_record calls
  std::size_t async_copies = 0;   // memcpy_async calls with bytes
  std::size_t host_touches = 0;   // kernels that read pinned host memory (staged transfers)
};

// Starts afresh (every stream drained, peer access and statistics cleared).
void reset(const Config& config);
const Stats& stats();

}  // namespace collsim::cuda::emulator
