// "Your own algorithm": a schedule written by hand as a TOML file of steps and transfers
// (docs/scenario-format.md, "Your own algorithm"), run as the algorithm "custom" with
// AlgorithmOptions::schedule_file. The loader is as strict as the scenario loader (every
// error names file:line:column and the key: InputError, exit 2). A schedule that loads but
// is wrong is proved wrong by the ordinary checker, and the checker's precise message is
// turned into words a student can act on ("step 2: rank 1 sends chunk 3 to rank 2 before
// it has received rank 0's contribution"): WrongScheduleError, a ScheduleError (exit 1).
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/core/errors.h"
#include "sim/run/request_fields.h"
#include "sim/run/run.h"
#include "sim/schedule/schedule.h"

namespace collsim {

inline constexpr std::string_view kCustomAlgorithm = "custom";
// The "schedule_format" key every schedule file starts with; this build reads version 1.
inline constexpr int kScheduleFormatVersion = 1;

// A schedule file as written: nothing is resolved against a count yet.
struct ScheduleFile {
  struct Position {
    int line = 0, column = 0;
  };
  // Where one side of a transfer lies in its buffer.
  struct Place {
    int chunk = -1;                    // >= 0: chunk `chunk` (see chunks_per_block)
    std::uint64_t begin = 0, end = 0;  // chunk < 0: elements [begin, end)
    bool whole = false;                // pre-operations only: the whole buffer
    int chunks = 1;                    // chunk >= 0: this many consecutive chunks from `chunk` (MSCCL's cnt)
  };
  struct Transfer {
    Position at;
    std::string key;  // "step[2].transfers[0]", for messages
    // Where the transfer comes from when that is not a TOML step ("GPU 1, thread block 0,
    // step 3" of an MSCCL file): the explanations name it instead of the step.
    std::string origin;
    int src = 0, dst = 0;
    BufferKind src_buffer = BufferKind::output, dst_buffer = BufferKind::output;
    Place from, to;
    Action action = Action::copy;
    int channel = 0;  // below ScheduleFile::channels
    // reduce_copy: the receiver's own data added to what arrives (Transfer::operand).
    BufferKind operand_buffer = BufferKind::input;
    Place with;
  };
  enum class PreKind : std::uint8_t {
    own_data,  // "copy input to output": every rank puts its own input where its result goes
    copy,      // a local copy on one rank (or every rank)
    fill,      // fill with the reduce op's identity, so that later transfers can reduce into it
  };
  struct PreOp {
    Position at;
    std::string key;
    PreKind kind = PreKind::own_data;
    int rank = -1;  // -1: every rank
    BufferKind src_buffer = BufferKind::input, dst_buffer = BufferKind::output;
    Place from, to;
  };
  struct Step {
    Position at;
    std::string label;  // as written; empty: "step k"
    std::vector<Transfer> transfers;
  };

  std::string source;  // the file name as given
  std::string title, description;
  Collective collective = Collective::all_reduce;
  int ranks = 0;
  int root = 0;
  std::optional<std::uint64_t> count;  // fixed by the file (needed for element ranges)
  int chunks_per_block = 1;            // a block is `count` elements; chunk c is part c % C of block c / C
  int scratch_blocks = 0;              // scratch buffer per rank, in blocks
  int channels = 1;                    // channels the transfers use (MSCCL's nchannels), 1..kMaxChannels
  std::optional<bool> in_place;        // fixed by the file (MSCCL's inplace/outofplace), else the run's
  std::string protocol;                // the file's protocol in --protocol's words (MSCCL's proto); empty: none
  bool msccl = false;                  // read from an MSCCL file: explanations speak its words (rrc, cpy, ...)
  std::vector<PreOp> pre;
  std::vector<Step> steps;
  Position collective_at, ranks_at, root_at, count_at;
  // What the reader found suspicious but not wrong (an MSCCL file's races), one line each,
  // each naming the file and the steps.
  std::vector<std::string> warnings;

  // The step label the schedule shows for file step i (0-based).
  std::string label(std::size_t i) const;
  // "chunk 3" or "elements [2,4)".
  std::string describe(const Place& p) const;
};

// Parses schedule text / reads a file. Throws InputError "FILE:LINE:COLUMN: key 'K': ...".
// A file whose name ends in .xml is an MSCCL algorithm (sim/run/msccl_import.h).
ScheduleFile parse_schedule_file(std::string_view text, const std::string& source);
// Schedule files (TOML or MSCCL XML) above this size are refused before they are parsed.
inline constexpr std::uint64_t kMaxScheduleFileBytes = 64ull << 20;
ScheduleFile load_schedule_file(const std::filesystem::path& path);
// Whether TOML text is a schedule file (it has a top-level "schedule_format" key) rather
// than a scenario; false for text that is not TOML at all.
bool is_schedule_text(std::string_view text);

// A schedule built from a file at one count, with where each piece came from.
struct BuiltSchedule {
  Schedule schedule;
  std::vector<std::size_t> file_step;      // per transfer: its step in the file (0-based)
  std::vector<std::size_t> file_transfer;  // per transfer: its index within that step
};
// Resolves chunks and element ranges at spec.count and builds the schedule (not checked).
// Throws InputError when the spec does not match the file (collective, ranks, root, count)
// or a place does not exist at this count, naming the file position.
BuiltSchedule build_from_file(const ScheduleFile& file, const CollectiveSpec& spec);

// The spec fields a schedule file fixes (collective, ranks, root, and count and in_place
// when it gives them), applied to `r` when r.algorithm is "custom", except those the user
// gave (`given`): a given value that disagrees with the file is an error later, when the
// schedule is built.
RunRequest adopt_schedule_spec(RunRequest r, const GivenFields& given = {});

// A hand-written schedule that loads but is wrong. what() is the student's explanation
// (with FILE:LINE:COLUMN of the transfer to blame, when there is one) followed by the
// checker's precise message.
class WrongScheduleError : public ScheduleError {
 public:
  WrongScheduleError(std::string explanation, std::string checker);
  const std::string& explanation() const { return explanation_; }
  const std::string& checker_message() const { return checker_; }

 private:
  std::string explanation_, checker_;
};

// The words for a checker error on a schedule built from a file, from the error's fields
// and the buffer history its check recorded up to the failure
// (BufferHistory::record_until_error).
std::string explain_schedule_error(const ScheduleFile& file, const BuiltSchedule& built, const CheckError& e,
                                   const BufferHistory& history);

// A hand-written schedule built and checked, with what its one check found: the
// dependencies and the buffer history (small, as a hand-written schedule is), so that
// prepare_run need not check it again. WrongScheduleError when the checker rejects it.
struct CheckedCustomSchedule {
  Schedule schedule;
  CheckReport report;
  std::shared_ptr<const BufferHistory> history;
};
CheckedCustomSchedule build_checked_custom_schedule(const CollectiveSpec& spec, const AlgorithmOptions& options);

}  // namespace collsim
