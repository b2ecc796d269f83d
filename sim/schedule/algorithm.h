// The tiny interface every algorithm file implements, and the registry that lists them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/schedule.h"

namespace collsim {

// Knobs some algorithms understand; the others ignore them.
struct AlgorithmOptions {
  int slices = 0;          // pipelined algorithms: slices per chunk; 0: the algorithm's default
                           // (build_schedule and resolve_options replace 0 with it)
  int slices_or(int fallback) const { return slices > 0 ? slices : fallback; }
  int servers = 1;         // parameter_server: number of servers S
  bool colocated = false;  // parameter_server: server s runs on worker s instead of an extra rank
  int ranks_per_node = 0;  // hierarchical: G ranks per node, N a multiple of G; 0: the smallest
                           // divisor of N that is at least sqrt(N) (two nodes for 4, 6 or 8 ranks)
  std::string schedule_file{};  // custom: the hand-written schedule (custom_schedule.h)
};

// How the views draw an algorithm (docs/design.md, "One model, many views"): the shape its
// transfers follow and the structure that shape needs. Each algorithm's file computes it;
// the app, the storyboard and the web page only read it.
enum class LayoutShape : std::uint8_t {
  ring,       // order: the ranks around the ring, data flowing order[i] -> order[i + 1]
  chain,      // order: a pipeline from order.front() to order.back()
  trees,      // trees: one or more rooted trees over the ranks (a double binary tree: two)
  star,       // hubs: the centre ranks everyone talks to (parameter servers, a root)
  all_pairs,  // every rank may talk to every other (direct algorithms; hand-written schedules)
  hypercube,  // partners differ in one bit each round (recursive doubling and halving)
  shifts,     // round k: every rank talks to the ranks 2^k away around a circle (dissemination, Bruck)
  hierarchy,  // group_size consecutive ranks per node: within nodes, then between them
};
std::string_view to_string(LayoutShape s);

struct TreeShape {
  int root = 0;
  std::vector<int> parent;  // parent[r]: r's parent, -1 for the root (and ranks not in the tree)
};

struct AlgorithmLayout {
  LayoutShape shape = LayoutShape::all_pairs;
  std::vector<int> order;        // ring, chain
  std::vector<TreeShape> trees;  // trees
  std::vector<int> hubs;         // star
  int group_size = 0;            // hierarchy: rank r is in node r / group_size
};

// The α-β-γ-δ of the closed forms, in ns and ns per byte (the timing model derives them
// from a topology: cost_params in sim/model/timing_model.h).
struct CostParams {
  double alpha_ns = 0;           // latency of one message over one link
  double beta_ns_per_byte = 0;   // 1 / link bandwidth
  double gamma_ns_per_byte = 0;  // 1 / reduction rate
  double delta_ns_per_byte = 0;  // 1 / local copy rate
  // A protocol's latency, paid once by a collective that moves anything (b in the forms;
  // sim/model/protocol.h). The algorithms' forms leave it out: closed_form_time_ns adds it.
  double base_ns = 0;
};

// What a closed form depends on.
struct CostShape {
  int ranks = 1;             // N (parameter_server: the workers W)
  double bytes = 0;          // n: algorithm_bytes (sim/model/cost_formulas.h says which bytes)
  AlgorithmOptions options;  // as resolved (resolve_options): slices, servers, colocated, ranks_per_node
  bool in_place = false;
};

// An algorithm's closed-form time on a switch (sim/model/cost_formulas.h has the notation
// and the rules the forms follow from).
struct ClosedFormInfo {
  std::string_view formula;  // for the default options and N a power of two, as printed
  std::string_view more;     // other options or N ("S slices: ..."); may be empty
  std::string_view scope;    // where time_ns holds: "any N", "N a power of two", ...
  // The time in ns, or nullopt where the formula does not apply (see scope).
  std::optional<double> (*time_ns)(const CostParams&, const CostShape&) = nullptr;
};

// Which of AlgorithmOptions' knobs an algorithm reads, so that the views show, edit and
// export only those (validate_request and the algorithm's own validate check the same).
struct AlgorithmKnobs {
  bool slices = true;           // --slices (every algorithm but the parameter server)
  bool servers = false;         // --servers and --colocated
  bool ranks_per_node = false;  // --ranks-per-node
};

// A schedule that looks the same from every rank (or every node): rank r + `ranks` does what
// rank r does, with every chunk one further along. Giving each rank's part to the one
// `ranks` further maps the schedule onto itself, each buffer's contents moved `elements[kind]`
// further — around the whole buffer, or around each block of `within[kind]` elements (a
// hierarchical all-reduce turns the sub-blocks inside each node's block) — so the timing
// model may predict the transfers of a few ranks and know the rest
// (sim/model/symmetric_model.h). A region of whole blocks stays where it is.
struct RankRotation {
  int ranks = 1;                            // the turn
  std::array<std::uint64_t, 3> elements{};  // per BufferKind (input, output, scratch): how far a turn moves them
  std::array<std::uint64_t, 3> within{};    // per BufferKind: the block they move around; 0: the whole buffer
};

struct AlgorithmInfo {
  std::string_view name;  // the command-line and scenario-file name
  Collective collective;
  std::string_view summary;        // one sentence for `collsim list`
  std::string_view steps_formula;  // communication steps, in N (display only)
  std::string_view bytes_formula;  // bytes each rank sends, in N and n (display only)
  // Which libraries offer this algorithm, and under which name or option: entries separated
  // by "; ", each starting with the library ("NCCL Ring (NCCL_ALGO=Ring); Open MPI tuned ring
  // (4)"), every one backed by docs/lessons-sources.md, section 11. Empty: none we know of.
  std::string_view used_by{};
  Schedule (*build)(const CollectiveSpec&, const AlgorithmOptions&);
  // How the views draw it; null: all_pairs in rank order.
  AlgorithmLayout (*layout)(const CollectiveSpec&, const AlgorithmOptions&) = nullptr;
  ClosedFormInfo closed_form{};
  bool is_default = false;  // the collective's default algorithm (exactly one per collective)
  // Checks the options only this algorithm understands (InputError naming the flag), after
  // the checks every request gets (validate_request). Null: nothing more to check.
  void (*validate)(const CollectiveSpec&, const AlgorithmOptions&, int max_ranks) = nullptr;
  // The options with this algorithm's own defaults filled in (a slices or ranks_per_node
  // of 0); resolve_options makes a slices still 0 one. Null: no defaults of its own.
  AlgorithmOptions (*resolve)(const CollectiveSpec&, AlgorithmOptions) = nullptr;
  // The ranks its schedule has beyond spec.ranks (a parameter server's extra servers), for
  // the options as given. Null: none.
  int (*extra_ranks)(const CollectiveSpec&, const AlgorithmOptions&) = nullptr;
  AlgorithmKnobs knobs{};  // the options it reads
  // Whether the timing model can predict it while it is generated, a few steps in memory
  // (predict_streamed in sim/model/timing_model.h): every transfer after its first
  // stream_window_steps steps depends on a transfer at most that many steps before it.
  // --model-only then takes up to kMaxStreamedRanks ranks. tests/test_streamed_model.cpp
  // checks the flag both ways.
  bool streams = false;
  // Its rotation for this request (RankRotation), or nullopt where the schedule does not
  // have it (chunks of unequal size, say). Null: not known to have one.
  // tests/test_symmetric_model.cpp checks every algorithm that says it does.
  std::optional<RankRotation> (*rotation)(const CollectiveSpec&, const AlgorithmOptions&) = nullptr;
};

std::span<const AlgorithmInfo> all_algorithms();
const AlgorithmInfo* find_algorithm(Collective c, std::string_view name);
// The collective's default algorithm: the CLI's and the scenario files' when none is named.
const AlgorithmInfo& default_algorithm(Collective c);
// `algorithm`, or the collective's default's name when it is empty (none named).
std::string_view algorithm_or_default(Collective c, std::string_view algorithm);
// The ranks the schedule of `algorithm` has: spec.ranks plus its extra ranks (a parameter
// server's servers, unless colocated); spec.ranks for an unknown or hand-written one.
int schedule_total_ranks(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options);
// How the views draw `algorithm` for this spec and options (as resolved); all_pairs in rank
// order for a hand-written schedule or an algorithm without a layout.
AlgorithmLayout algorithm_layout(const CollectiveSpec& spec, std::string_view algorithm,
                                 const AlgorithmOptions& options);

// The knobs `algorithm` reads (AlgorithmInfo::knobs); the defaults for an unknown or
// hand-written one.
AlgorithmKnobs algorithm_knobs(Collective c, std::string_view algorithm);

// The largest rank count collsim accepts (schedules grow as N^2 transfers).
inline constexpr int kMaxRanks = 1024;
// The largest rank count of a --model-only run, which allocates no buffers and skips the
// symbolic check above kMaxRanks (kMaxTransfers still bounds the schedule).
inline constexpr int kMaxModelRanks = 4096;
// The largest rank count of a --model-only run whose algorithm streams (AlgorithmInfo::streams):
// predicted a few steps at a time, its memory grows with the ranks, not with the transfers.
inline constexpr int kMaxStreamedRanks = 65536;
// The rank limit of a --model-only run of `algorithm`: kMaxStreamedRanks where it streams or
// has a rotation (predicted from one node where the topology allows, else whole, and then
// refused for memory long before), kMaxModelRanks otherwise (and for a hand-written or
// unknown one).
int model_rank_limit(Collective c, std::string_view algorithm);
// The most transfers a schedule may be expected to hold (estimated as 2 N^2 slices).
inline constexpr double kMaxTransfers = 4.2e7;

// The steps a streamed prediction must have generated ahead (StreamOptions::window_steps):
// the resolved slices. A sliced pipeline sends slice s of a chunk one step after slice s-1,
// so a transfer waits for the same slice of the step before in the algorithm's own terms,
// `slices` steps back; without slices, one.
int stream_window_steps(const CollectiveSpec& spec, std::string_view algorithm, const AlgorithmOptions& options);

// The options with every "default" (slices 0) replaced by the algorithm's value, as
// build_schedule uses them and a trace records them: the algorithm's own (AlgorithmInfo::resolve),
// then slices 0 -> 1 (for an unknown or hand-written algorithm too).
AlgorithmOptions resolve_options(const CollectiveSpec& spec, std::string_view algorithm, AlgorithmOptions options);

// --ranks outside 1..max_ranks: InputError (the message names --model-only's larger limits).
void check_rank_count(int ranks, int max_ranks);

// Checks the spec and options against the algorithm (throws InputError naming the flag):
// rank count up to `max_ranks`, root, sizes, slices, in-place support and the options the
// algorithm understands. `algo` is null for a schedule that is not in the registry (a
// hand-written one: "custom", sim/run/custom_schedule.h).
void validate_request(const CollectiveSpec& spec, const AlgorithmInfo* algo, const AlgorithmOptions& options,
                      int max_ranks = kMaxRanks);

// Validates the request and builds the registered algorithm's schedule (InputError for an
// unknown name, listing the collective's algorithms). The schedule is not checked here; see
// checker.h. Hand-written schedules ("custom") are built one layer up, by build_schedule
// (sim/run/run.h), which loads the file and explains a wrong one.
// `max_ranks` is kMaxRanks, or kMaxModelRanks for a --model-only run.
Schedule build_algorithm_schedule(const CollectiveSpec& spec, std::string_view algorithm,
                                  const AlgorithmOptions& options, int max_ranks = kMaxRanks);

}  // namespace collsim
