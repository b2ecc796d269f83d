#include "sim/schedule.h"

namespace collsim {

std::string_view to_string(BufferKind b) {
  switch (b) {
    case BufferKind::input: return "input";
    case BufferKind::output: return "output";
    case BufferKind::scratch: return "scratch";
  }
  return "?";
}

std::string_view to_string(Action a) { return a == Action::copy ? "copy" : "reduce"; }

std::string_view to_string(LocalOpKind k) {
  switch (k) {
    case LocalOpKind::copy: return "copy";
    case LocalOpKind::fill_identity: return "fill_identity";
    case LocalOpKind::divide: return "divide";
  }
  return "?";
}

std::uint64_t Schedule::buffer_elements(int rank, BufferKind b) const {
  switch (b) {
    case BufferKind::input: return input_elements(spec, rank);
    case BufferKind::output: return output_elements(spec, rank);
    case BufferKind::scratch:
      return rank >= 0 && rank < static_cast<int>(scratch_count.size()) ? scratch_count[static_cast<std::size_t>(rank)] : 0;
  }
  return 0;
}

int communication_steps(const Schedule& s) {
  std::vector<bool> remote(static_cast<std::size_t>(s.step_count()), false);
  for (const Transfer& t : s.transfers)
    if (!t.is_local()) remote[static_cast<std::size_t>(t.step)] = true;
  int n = 0;
  for (bool r : remote) n += r ? 1 : 0;
  return n;
}

namespace {
std::vector<std::uint64_t> bytes_per_rank(const Schedule& s, bool by_sender) {
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(s.total_ranks), 0);
  for (const Transfer& t : s.transfers)
    if (!t.is_local()) bytes[static_cast<std::size_t>(by_sender ? t.src : t.dst)] += s.bytes(t);
  return bytes;
}
}  // namespace

std::vector<std::uint64_t> bytes_sent_per_rank(const Schedule& s) { return bytes_per_rank(s, true); }
std::vector<std::uint64_t> bytes_received_per_rank(const Schedule& s) { return bytes_per_rank(s, false); }

}  // namespace collsim
