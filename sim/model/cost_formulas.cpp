// The closed forms of cost_formulas.h, one row per algorithm, in the order of `collsim
// list`. Each row: the formula as printed, where it holds, and the same formula as code.
// Times in ns; α in ns, β, γ, δ in ns per byte (see timing_model.h).
//
// How each form follows from the model's rules (docs/timing-model.md has the details):
// a step in which every rank sends one message costs α + m·β for m bytes (+ m·γ when it
// is reduced), because on a switch every rank has its own ports; messages into one rank
// or out of one rank queue on that port, one after the other; local work costs m·δ (a
// copy) or m·γ (a reduce) and uses no port.
#include "sim/model/cost_formulas.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

namespace collsim {
namespace {

using Time = std::optional<double>;

int floor_lg(int n) { return std::bit_width(static_cast<unsigned>(n)) - 1; }
int ceil_lg(int n) { return n <= 1 ? 0 : std::bit_width(static_cast<unsigned>(n - 1)); }
int pof2(int n) { return largest_power_of_two(n); }
bool is_pof2(int n) { return std::has_single_bit(static_cast<unsigned>(n)); }

// The fold-in's extra blocks along the critical path: round k of the power-of-two core
// carries min(2^k, rem) more blocks (a folded pair's virtual rank holds two), k < lg N'.
double fold_extra_blocks(int n) {
  const int rem = n - pof2(n);
  double extra = 0;
  for (int d = 1; d < pof2(n); d *= 2) extra += std::min(d, rem);
  return extra;
}

// Blocks Bruck's all-to-all sends: block i moves in every round k with bit k of i set.
double set_bits_below(int n) {
  double bits = 0;
  for (int i = 0; i < n; ++i) bits += std::popcount(static_cast<unsigned>(i));
  return bits;
}

// Shorthands: N and n as doubles.
double N(const CostShape& s) { return s.ranks; }
double n(const CostShape& s) { return s.bytes; }

// One message of m bytes, copied or reduced on arrival.
double copy(const CostParams& p, double m) { return p.alpha_ns + m * p.beta_ns_per_byte; }
double reduce(const CostParams& p, double m) { return p.alpha_ns + m * (p.beta_ns_per_byte + p.gamma_ns_per_byte); }

// Ring all-reduce with S slices per chunk. Every port carries 2(N-1)S messages of h =
// α + nβ/(NS); a slice must also be reduced (g = nγ/(NS)) before it moves on. While
// g <= (S-1)h the port never waits and the time is 2(N-1)S·h; otherwise each
// reduce-scatter step takes h + g and the all-gather then runs back to back.
Time ring_all_reduce(const CostParams& p, const CostShape& s) {
  const double slices = s.options.slices_or(1), h = copy(p, n(s) / (N(s) * slices)),
               g = n(s) * p.gamma_ns_per_byte / (N(s) * slices);
  return (N(s) - 1) * (slices * h + std::max(slices * h, h + g));
}

// W pushes into each server's accumulator are serialised by their write-after-write
// dependencies; server s starts s messages late because every worker sends to the servers
// in order; the pulls then leave each server one after the other.
Time parameter_server(const CostParams& p, const CostShape& s) {
  const double servers = s.options.servers, w = N(s), shard = n(s) / servers;
  if (!s.options.colocated) return (servers - 1) * copy(p, shard) + w * (reduce(p, shard) + copy(p, shard));
  if (servers == 1) return (w - 1) * (reduce(p, n(s)) + copy(p, n(s)));
  return std::nullopt;  // colocated servers also push and pull as workers: no simple form
}

Time recursive_doubling_all_reduce(const CostParams& p, const CostShape& s) {
  const double rounds = floor_lg(s.ranks);
  if (is_pof2(s.ranks)) return rounds * reduce(p, n(s));
  return (rounds + 2) * copy(p, n(s)) + (rounds + 1) * n(s) * p.gamma_ns_per_byte;
}

Time rabenseifner(const CostParams& p, const CostShape& s) {
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks), share = (np - 1) / np * n(s);
  const double core = 2 * rounds * p.alpha_ns + 2 * share * p.beta_ns_per_byte + share * p.gamma_ns_per_byte;
  return is_pof2(s.ranks) ? core : core + reduce(p, n(s)) + copy(p, n(s));
}

Time hierarchical(const CostParams& p, const CostShape& s) {
  const double g = s.options.ranks_per_node, m = N(s) / g, share = (N(s) - 1) / N(s) * n(s);
  return 2 * (g - 1 + m - 1) * p.alpha_ns + 2 * share * p.beta_ns_per_byte + share * p.gamma_ns_per_byte;
}

// Each level of the two trees moves two half vectors through one port (two children into
// a parent, or a rank sending up both trees), for 2 lg N - 1 levels up and down.
Time double_binary_tree(const CostParams& p, const CostShape& s) {
  if (!is_pof2(s.ranks) || s.options.slices_or(1) != 1) return std::nullopt;
  const double levels = 2.0 * floor_lg(s.ranks) - 1;
  return levels * (2 * p.alpha_ns + n(s) * p.beta_ns_per_byte + n(s) * p.gamma_ns_per_byte / 2);
}

// Fold for any N: the even rank of a pair sends its block in, the core's messages carry
// the extra blocks of folded pairs, and the odd rank sends back the N-1 blocks its partner lacks.
Time recursive_doubling_all_gather(const CostParams& p, const CostShape& s) {
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks);
  if (is_pof2(s.ranks)) return rounds * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
  const double blocks = 1 + (np - 1) + fold_extra_blocks(s.ranks) + (N(s) - 1);
  return (rounds + 2) * p.alpha_ns + blocks / N(s) * n(s) * p.beta_ns_per_byte;
}

// Fold for any N: the even rank of a pair reduces its whole input into its partner, the
// core's messages carry the extra blocks of folded pairs, and the odd rank sends the even
// one its finished block.
Time recursive_halving(const CostParams& p, const CostShape& s) {
  const double np = pof2(s.ranks), rounds = floor_lg(s.ranks), bg = p.beta_ns_per_byte + p.gamma_ns_per_byte;
  if (is_pof2(s.ranks)) return rounds * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * bg;
  const double core_blocks = (np - 1) + fold_extra_blocks(s.ranks);
  return reduce(p, n(s)) + rounds * p.alpha_ns + core_blocks / N(s) * n(s) * bg + copy(p, n(s) / N(s));
}

Time bruck_all_to_all(const CostParams& p, const CostShape& s) {
  const double moved = set_bits_below(s.ranks) / N(s) * n(s);
  return ceil_lg(s.ranks) * p.alpha_ns + moved * (p.beta_ns_per_byte + p.delta_ns_per_byte) +
         n(s) * p.delta_ns_per_byte;
}

// N-1 messages of n/N bytes through one port (or in N-1 permutation steps).
Time blocks_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * copy(p, n(s) / N(s)); }
Time blocks_reduced_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * reduce(p, n(s) / N(s)); }
// N-1 whole vectors through one port.
Time vectors_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * copy(p, n(s)); }
Time vectors_reduced_one_by_one(const CostParams& p, const CostShape& s) { return (N(s) - 1) * reduce(p, n(s)); }
// A binomial tree's ceil(lg N) rounds of whole vectors.
Time tree_rounds(const CostParams& p, const CostShape& s) { return ceil_lg(s.ranks) * copy(p, n(s)); }
Time tree_rounds_reduced(const CostParams& p, const CostShape& s) { return ceil_lg(s.ranks) * reduce(p, n(s)); }
// A binomial tree's ceil(lg N) rounds whose blocks add up to (N-1)/N of the data.
Time tree_blocks(const CostParams& p, const CostShape& s) {
  return ceil_lg(s.ranks) * p.alpha_ns + (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
}
// One message between two ranks (a local copy with one rank).
Time one_message(const CostParams& p, const CostShape& s) {
  return s.ranks == 1 ? n(s) * p.delta_ns_per_byte : copy(p, n(s));
}

const CostFormula kFormulas[] = {
    {Collective::all_reduce, "ring", "2(N-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ",
     "S slices: (N-1)(S·h + max(S·h, h + g)), h = α + nβ/(NS), g = nγ/(NS)", "any N", &ring_all_reduce},
    {Collective::all_reduce, "parameter_server", "(S-1)(α + nβ/S) + W(2α + 2nβ/S + nγ/S)",
     "colocated, S = 1: (W-1)(2α + 2nβ + nγ)", "any W; colocated only with S = 1", &parameter_server},
    {Collective::all_reduce, "direct", "(N-1)(α + nβ + nγ)", "", "any N", &vectors_reduced_one_by_one},
    {Collective::all_reduce, "binomial_tree", "2 ceil(lg N)(α + nβ) + ceil(lg N)·nγ", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time {
       return 2 * ceil_lg(s.ranks) * copy(p, n(s)) + ceil_lg(s.ranks) * n(s) * p.gamma_ns_per_byte;
     }},
    {Collective::all_reduce, "double_binary_tree", "(2 lg N - 1)(2α + nβ + nγ/2)", "", "N a power of two, S = 1",
     &double_binary_tree},
    {Collective::all_reduce, "recursive_doubling", "lg N·(α + nβ + nγ)",
     "other N: (lg N' + 2)(α + nβ) + (lg N' + 1)·nγ", "any N", &recursive_doubling_all_reduce},
    {Collective::all_reduce, "rabenseifner", "2 lg N·α + 2(N-1)/N·nβ + (N-1)/N·nγ",
     "other N: the same in N', + (2α + 2nβ + nγ) for the fold", "any N", &rabenseifner},
    {Collective::all_reduce, "hierarchical", "2(G-1 + N/G-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ", "", "any N = G·(N/G)",
     &hierarchical},
    {Collective::all_gather, "ring", "(N-1)(α + nβ/N)", "", "any N", &blocks_one_by_one},
    {Collective::all_gather, "recursive_doubling", "lg N·α + (N-1)/N·nβ",
     "other N: (lg N' + 2)α + (N' + N - 1 + X)/N·nβ, X = sum over k < lg N' of min(2^k, rem)", "any N",
     &recursive_doubling_all_gather},
    {Collective::all_gather, "bruck", "ceil(lg N)α + (N-1)/N·nβ + nδ (the final rotation)", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time {
       return tree_blocks(p, s).value() + n(s) * p.delta_ns_per_byte;
     }},
    {Collective::all_gather, "direct", "(N-1)(α + nβ/N)", "", "any N", &blocks_one_by_one},
    {Collective::reduce_scatter, "ring", "(N-1)(α + nβ/N + nγ/N)", "", "any N", &blocks_reduced_one_by_one},
    {Collective::reduce_scatter, "recursive_halving", "lg N·α + (N-1)/N·n(β + γ)",
     "other N: (lg N' + 2)α + n(β + γ) + (N' - 1 + X)/N·n(β + γ) + nβ/N, X = sum over k < lg N' of min(2^k, rem)",
     "any N", &recursive_halving},
    {Collective::reduce_scatter, "direct", "(N-1)(α + nβ/N + nγ/N)", "", "any N", &blocks_reduced_one_by_one},
    {Collective::all_to_all, "direct", "(N-1)(α + nβ/N)", "", "any N", &blocks_one_by_one},
    {Collective::all_to_all, "bruck", "ceil(lg N)α + B/N·n(β + δ) + nδ, B = set bits in 0..N-1 (lg N·N/2 for N = 2^k)",
     "", "any N", &bruck_all_to_all},
    {Collective::broadcast, "binomial_tree", "ceil(lg N)(α + nβ)", "", "any N", &tree_rounds},
    {Collective::broadcast, "chain", "(N-2+S)(α + nβ/S)", "", "any N >= 2",
     [](const CostParams& p, const CostShape& s) -> Time {
       const double slices = s.options.slices_or(1);
       return s.ranks < 2 ? 0 : (N(s) - 2 + slices) * copy(p, n(s) / slices);
     }},
    {Collective::broadcast, "scatter_allgather", "(ceil(lg N) + N-1)α + 2(N-1)/N·nβ", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time {
       return (ceil_lg(s.ranks) + N(s) - 1) * p.alpha_ns + 2 * (N(s) - 1) / N(s) * n(s) * p.beta_ns_per_byte;
     }},
    {Collective::broadcast, "direct", "(N-1)(α + nβ)", "", "any N", &vectors_one_by_one},
    {Collective::reduce, "binomial_tree", "ceil(lg N)(α + nβ + nγ)", "", "any N", &tree_rounds_reduced},
    {Collective::reduce, "ring", "2(N-1)α + 2(N-1)/N·nβ + (N-1)/N·nγ", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time {
       return blocks_reduced_one_by_one(p, s).value() + blocks_one_by_one(p, s).value();
     }},
    {Collective::reduce, "direct", "(N-1)(α + nβ + nγ)", "", "any N", &vectors_reduced_one_by_one},
    {Collective::gather, "binomial_tree", "ceil(lg N)α + (N-1)/N·nβ", "", "any N", &tree_blocks},
    {Collective::gather, "direct", "(N-1)(α + nβ/N)", "", "any N", &blocks_one_by_one},
    {Collective::scatter, "binomial_tree", "ceil(lg N)α + (N-1)/N·nβ", "", "any N", &tree_blocks},
    {Collective::scatter, "direct", "(N-1)(α + nβ/N)", "", "any N", &blocks_one_by_one},
    {Collective::barrier, "dissemination", "ceil(lg N)α", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time { return ceil_lg(s.ranks) * p.alpha_ns; }},
    {Collective::barrier, "binomial_tree", "2 ceil(lg N)α", "", "any N",
     [](const CostParams& p, const CostShape& s) -> Time { return 2 * ceil_lg(s.ranks) * p.alpha_ns; }},
    {Collective::send_recv, "direct", "α + nβ", "", "N >= 2 (one rank: a local copy, nδ)", &one_message},
    {Collective::send_recv, "ring_shift", "α + nβ", "", "N >= 2 (one rank: a local copy, nδ)", &one_message},
};

std::string gbps(double ns_per_byte) { return fmt::format("{:g} GB/s", 1.0 / ns_per_byte); }

}  // namespace

CostShape cost_shape(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options) {
  return {spec.ranks, static_cast<double>(algorithm_bytes(spec)), resolve_options(spec, algorithm, options),
          spec.in_place};
}

std::span<const CostFormula> cost_formulas() { return kFormulas; }

const CostFormula* find_cost_formula(Collective c, std::string_view algorithm) {
  for (const CostFormula& f : kFormulas)
    if (f.collective == c && f.algorithm == algorithm) return &f;
  return nullptr;
}

ClosedForm closed_form(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options,
                       const CostParams& p) {
  const CostFormula* f = find_cost_formula(spec.collective, algorithm);
  if (!f) return {};
  const CostShape shape = cost_shape(spec, algorithm, options);
  // The other forms matter only when the run is not the plain case.
  const bool variant =
      shape.options.slices_or(1) > 1 || !is_pof2(spec.ranks) || shape.options.servers > 1 || shape.options.colocated;
  const std::string formula =
      variant && !f->more.empty() ? fmt::format("{}; {}", f->formula, f->more) : std::string(f->formula);
  return {formula, std::string(f->scope),
          fmt::format("N = {}, n = {}, α = {}, 1/β = {}, 1/γ = {}, 1/δ = {}", spec.ranks, format_bytes(shape.bytes),
                      format_duration_ns(p.alpha_ns), gbps(p.beta_ns_per_byte), gbps(p.gamma_ns_per_byte),
                      gbps(p.delta_ns_per_byte)),
          f->time_ns(p, shape)};
}

}  // namespace collsim
