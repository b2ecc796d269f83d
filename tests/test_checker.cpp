// The checker must reject broken schedules, each with a message that says what broke.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/algorithm.h"
#include "sim/check/buffer_history.h"
#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/run/run.h"
#include "sim/schedule/schedule_builder.h"

using namespace collsim;

namespace {

CollectiveSpec all_reduce(int ranks, std::uint64_t count) {
  return {Collective::all_reduce, ranks, count, DataType::f32, ReduceOp::sum, 0};
}

Region out(int rank, std::uint64_t offset, std::uint64_t count) { return {rank, BufferKind::output, offset, count}; }
Region in(int rank, std::uint64_t offset, std::uint64_t count) { return {rank, BufferKind::input, offset, count}; }

// A correct 2-rank ring all-reduce of 2 elements, with `tweak` applied between phases.
Schedule two_rank_ring(bool drop_reduce = false, bool reduce_twice = false, bool same_step_read = false) {
  ScheduleBuilder b(all_reduce(2, 2), "hand-made");
  b.pre_copy(in(0, 0, 2), out(0, 0, 2));
  b.pre_copy(in(1, 0, 2), out(1, 0, 2));
  b.step("reduce-scatter 1/1");
  if (!drop_reduce) b.reduce(0, out(0, 0, 1), out(1, 0, 1));
  b.reduce(1, out(1, 1, 1), out(0, 1, 1));
  if (same_step_read) b.copy(0, out(1, 0, 1), out(0, 0, 1));  // reads what arrives in this very step
  b.step("all-gather 1/1");
  if (!same_step_read) b.copy(0, out(1, 0, 1), out(0, 0, 1));
  b.copy(1, out(0, 1, 1), out(1, 1, 1));
  if (reduce_twice) {
    b.step("again");
    b.reduce(1, in(1, 1, 1), out(0, 1, 1));
  }
  return std::move(b).finish();
}

std::string failure_of(const Schedule& s) {
  try {
    check_schedule(s);
  } catch (const ScheduleError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a hand-made correct ring passes") { CHECK_NOTHROW(check_schedule(two_rank_ring())); }

TEST_CASE("checker: a read before the data arrives (same step) is rejected") {
  const std::string msg = failure_of(two_rank_ring(false, false, true));
  CHECK(msg.find("reads what an earlier transfer of the same step writes") != std::string::npos);
  CHECK(msg.find("step 1 (reduce-scatter 1/1)") != std::string::npos);
}

TEST_CASE("checker: a read of data that never arrived is rejected") {
  ScheduleBuilder b(all_reduce(2, 2), "hand-made");
  b.set_scratch(1, 2);
  b.step("forward");
  b.copy(0, {1, BufferKind::scratch, 0, 2}, out(0, 0, 2));  // scratch was never written
  const std::string msg = failure_of(std::move(b).finish());
  CHECK(msg.find("reads rank 1 scratch[0,2) before anything was written there") != std::string::npos);
}

TEST_CASE("checker: a missing contribution is rejected") {
  const std::string msg = failure_of(two_rank_ring(true));
  CHECK(msg.find("lacks rank 0's input[0,1)") != std::string::npos);
  CHECK(msg.find("rank 0 output[0,1)") != std::string::npos);
}

TEST_CASE("checker: a contribution added twice is rejected") {
  const std::string msg = failure_of(two_rank_ring(false, true));
  CHECK(msg.find("already holds rank 1's input[1,2)") != std::string::npos);
  CHECK(msg.find("count it twice") != std::string::npos);
  CHECK(msg.find("step 3 (again)") != std::string::npos);
}

TEST_CASE("checker: a swapped block is rejected") {
  CollectiveSpec spec = all_reduce(2, 2);
  spec.collective = Collective::all_gather;
  ScheduleBuilder b(spec, "hand-made");
  b.pre_copy(in(0, 0, 2), out(0, 0, 2));
  b.pre_copy(in(1, 0, 2), out(1, 0, 2));  // wrong: rank 1's block belongs at [2,4)
  b.step("exchange");
  b.copy(0, in(0, 0, 2), out(1, 2, 2));
  b.copy(1, in(1, 0, 2), out(0, 2, 2));
  const std::string msg = failure_of(std::move(b).finish());
  CHECK(msg.find("at the end rank 1 output[0,2)") != std::string::npos);
  CHECK(msg.find("rank 0's input[0,2)") != std::string::npos);
}

TEST_CASE("checker: two copies into one region in one step are rejected, two reduces are not") {
  ScheduleBuilder b(all_reduce(3, 1), "hand-made");
  for (int r = 0; r < 3; ++r) b.pre_copy(in(r, 0, 1), out(r, 0, 1));
  b.step("two writers");
  b.copy(0, in(1, 0, 1), out(0, 0, 1));
  b.copy(0, in(2, 0, 1), out(0, 0, 1));
  const std::string msg = failure_of(std::move(b).finish());
  CHECK(msg.find("writes a region that another transfer of the same step also writes, and not both reduce") !=
        std::string::npos);

  // The direct algorithm reduces N-1 times into one region per step: allowed.
  CHECK_NOTHROW(check_schedule(build_algorithm_schedule(all_reduce(5, 3), "direct", {})));
}

TEST_CASE("checker: a reduce into data never written is rejected") {
  ScheduleBuilder b(all_reduce(2, 1), "hand-made");
  b.set_scratch(0, 1);
  b.step("push");
  b.reduce(0, in(1, 0, 1), {0, BufferKind::scratch, 0, 1});  // no identity fill first
  const std::string msg = failure_of(std::move(b).finish());
  CHECK(msg.find("reduces into rank 0 scratch[0,1), which was never written") != std::string::npos);
}

TEST_CASE("checker: out-of-bounds regions, writes into inputs and overlapping source/destination") {
  {
    ScheduleBuilder b(all_reduce(2, 4), "hand-made");
    b.step("oops");
    b.copy(0, in(0, 2, 4), out(1, 0, 4));
    CHECK(failure_of(std::move(b).finish()).find("lies outside the buffer (4 elements)") != std::string::npos);
  }
  {
    ScheduleBuilder b(all_reduce(2, 4), "hand-made");
    b.step("oops");
    b.copy(0, out(0, 0, 2), in(1, 0, 2));
    CHECK(failure_of(std::move(b).finish()).find("writes into an input buffer") != std::string::npos);
  }
  {
    ScheduleBuilder b(all_reduce(2, 4), "hand-made");
    b.step("oops");
    b.copy(0, out(0, 0, 3), out(0, 1, 3));
    CHECK(failure_of(std::move(b).finish()).find("source and destination overlap") != std::string::npos);
  }
}

TEST_CASE("builder: empty transfers are dropped, steps renumbered, all-local steps labelled local") {
  ScheduleBuilder b(all_reduce(2, 2), "hand-made");
  b.step("nothing moves");
  b.copy(0, in(0, 0, 0), out(1, 0, 0));
  b.step("a local combine");
  b.copy(0, in(0, 0, 2), out(0, 0, 2));
  b.step("a real send");
  b.reduce(0, in(1, 0, 2), out(0, 0, 2));
  const Schedule s = std::move(b).finish();
  REQUIRE(s.step_count() == 2);
  CHECK(s.step_labels[0] == "local");
  CHECK(s.step_labels[1] == "a real send");
  CHECK(s.transfers.size() == 2);
  CHECK(s.transfers[1].step == 1);
  CHECK(communication_steps(s) == 1);
}

TEST_CASE("dependencies are derived from regions: read after write, write after read, write after write") {
  ScheduleBuilder b(all_reduce(3, 4), "hand-made");
  b.set_scratch(1, 4);
  b.step("a");
  b.copy(0, in(0, 0, 4), {1, BufferKind::scratch, 0, 4});   // #0 writes 1:scratch
  b.step("b");
  b.copy(0, {1, BufferKind::scratch, 0, 2}, out(2, 0, 2));  // #1 reads 1:scratch[0,2) after #0: RAW
  b.copy(0, in(2, 0, 2), out(0, 0, 2));                      // #2 independent
  b.step("c");
  b.copy(0, in(2, 0, 4), {1, BufferKind::scratch, 0, 4});   // #3 WAW on #0, WAR on #1
  const Schedule s = std::move(b).finish();
  const DependencyGraph g = derive_dependencies(s);
  CHECK(g.dependencies_of(0).empty());
  REQUIRE(g.dependencies_of(1).size() == 1);
  CHECK(g.dependencies_of(1)[0] == 0);
  CHECK(g.dependencies_of(2).empty());
  REQUIRE(g.dependencies_of(3).size() == 2);
  CHECK(g.dependencies_of(3)[0] == 0);
  CHECK(g.dependencies_of(3)[1] == 1);
  const DependencyGraph r = reverse(g);
  REQUIRE(r.dependencies_of(0).size() == 2);
  CHECK(r.dependencies_of(0)[0] == 1);
  CHECK(r.dependencies_of(0)[1] == 3);
}

TEST_CASE("ring dependencies: each transfer waits only for the chunk it forwards and for its destination's last use") {
  const Schedule s = build_algorithm_schedule(all_reduce(4, 8), "ring", {});
  const DependencyGraph g = check_schedule(s).dependencies;
  for (std::size_t t = 0; t < s.transfers.size(); ++t) {
    const Transfer& x = s.transfers[t];
    for (std::uint32_t d : g.dependencies_of(t)) {
      const Transfer& y = s.transfers[d];
      CHECK(y.step < x.step);  // never within a step, never a global barrier
      const bool feeds_source = y.dst == x.src && y.chunk == x.chunk;
      const bool same_destination_chunk = (y.dst == x.dst || y.src == x.dst) && y.chunk == x.chunk;
      CHECK((feeds_source || same_destination_chunk));
    }
  }
}

// --- the checker's errors as data (CheckError), for views that phrase them ---------------

namespace {

CheckError error_of(const Schedule& s) {
  try {
    check_schedule(s);
  } catch (const CheckError& e) {
    return e;
  }
  FAIL("the checker passed a broken schedule");
  return CheckError(CheckErrorKind::step_order, CheckErrorSite::transfer, "unreachable");
}

}  // namespace

TEST_CASE("check errors: a same-step read names the reader, then the writer it races") {
  const Schedule s = two_rank_ring(false, false, true);
  const CheckError e = error_of(s);
  CHECK(e.kind == CheckErrorKind::read_write_conflict_in_step);
  CHECK(e.site == CheckErrorSite::transfer);
  REQUIRE(e.transfers.size() == 2);
  CHECK(e.transfers[0] == 2);  // the copy from rank 1's output[0,1)...
  CHECK(e.transfers[1] == 0);  // ...which the reduce of the same step writes
  CHECK(e.ranks == std::vector<int>{1, 0});
  REQUIRE(e.regions.size() == 2);
  CHECK(e.regions[0] == out(1, 0, 1));
  CHECK(e.regions[1] == out(1, 0, 1));
  CHECK(std::string(e.what()) == failure_of(s));  // the same words as before
}

TEST_CASE("check errors: kinds, transfers, ranks and contributors of broken schedules") {
  SUBCASE("a contribution added twice") {
    const CheckError e = error_of(two_rank_ring(false, true));
    CHECK(e.kind == CheckErrorKind::double_contribution);
    CHECK(e.transfers == std::vector<std::size_t>{4});
    CHECK(e.ranks == std::vector<int>{1, 0});
    CHECK(e.regions == std::vector<Region>{out(0, 1, 1)});
    CHECK(e.contributors == std::vector<int>{1});
  }
  SUBCASE("a missing contribution, at the end") {
    const CheckError e = error_of(two_rank_ring(true));
    CHECK(e.kind == CheckErrorKind::missing_contribution);
    CHECK(e.site == CheckErrorSite::final_state);
    CHECK(e.transfers.empty());
    CHECK(e.ranks == std::vector<int>{0});
    CHECK(e.regions == std::vector<Region>{out(0, 0, 1)});
    CHECK(e.contributors == std::vector<int>{0});
  }
  SUBCASE("a read of data never written") {
    ScheduleBuilder b(all_reduce(2, 2), "hand-made");
    b.set_scratch(1, 2);
    b.step("forward");
    b.copy(0, {1, BufferKind::scratch, 0, 2}, out(0, 0, 2));
    const CheckError e = error_of(std::move(b).finish());
    CHECK(e.kind == CheckErrorKind::read_before_write);
    CHECK(e.transfers == std::vector<std::size_t>{0});
    CHECK(e.regions == std::vector<Region>{{1, BufferKind::scratch, 0, 2}});
  }
  SUBCASE("two copies into one region in one step") {
    ScheduleBuilder b(all_reduce(3, 1), "hand-made");
    for (int r = 0; r < 3; ++r) b.pre_copy(in(r, 0, 1), out(r, 0, 1));
    b.step("two writers");
    b.copy(0, in(1, 0, 1), out(0, 0, 1));
    b.copy(0, in(2, 0, 1), out(0, 0, 1));
    const CheckError e = error_of(std::move(b).finish());
    CHECK(e.kind == CheckErrorKind::conflicting_writes_in_step);
    CHECK(e.transfers == std::vector<std::size_t>{1, 0});
    CHECK(e.ranks == std::vector<int>{2, 0, 1});
  }
  SUBCASE("a write into an input, and a region outside its buffer") {
    ScheduleBuilder b(all_reduce(2, 4), "hand-made");
    b.step("oops");
    b.copy(0, out(0, 0, 2), in(1, 0, 2));
    CHECK(error_of(std::move(b).finish()).kind == CheckErrorKind::input_written);
    ScheduleBuilder c(all_reduce(2, 4), "hand-made");
    c.step("oops");
    c.copy(0, in(0, 2, 4), out(1, 0, 4));
    const CheckError e = error_of(std::move(c).finish());
    CHECK(e.kind == CheckErrorKind::region_out_of_range);
    CHECK(e.regions == std::vector<Region>{in(0, 2, 4)});
  }
  SUBCASE("a barrier whose last round is missing") {
    Schedule s = build_algorithm_schedule({Collective::barrier, 4, 0, DataType::f32, ReduceOp::max, 0}, "dissemination", {});
    const int last = s.step_count() - 1;
    std::erase_if(s.transfers, [last](const Transfer& t) { return t.step == last; });
    const CheckError e = error_of(s);
    CHECK(e.kind == CheckErrorKind::barrier_incomplete);
    CHECK(e.site == CheckErrorSite::final_state);
    CHECK(!e.contributors.empty());
  }
}

TEST_CASE("checker_runs counts every check, passed or failed") {
  const std::uint64_t before = checker_runs();
  check_schedule(two_rank_ring());
  CHECK(checker_runs() == before + 1);
  (void)failure_of(two_rank_ring(true));
  CHECK(checker_runs() == before + 2);
  (void)BufferHistory::record(two_rank_ring());  // records during one check, not after it
  CHECK(checker_runs() == before + 3);
}

// --- the buffer history (sim/check/buffer_history.h) ----------------------------------------

TEST_CASE("buffer history: the state of a cell after each step, and its last writer") {
  const Schedule s = two_rank_ring();
  const BufferHistory h = BufferHistory::record(s);
  const int row = h.row_of(0, BufferKind::output);
  REQUIRE(row >= 0);
  const auto [first, last] = h.cells_in(row, 0, 1);  // rank 0's chunk 0
  REQUIRE(last == first + 1);
  CHECK(h.step_count() == 2);
  CHECK(h.transfers_before_step(1) == 2);
  CHECK(ranks_of(h.state_after_step(first, 0)->contributions).count == 1);  // its own input
  CHECK(ranks_of(h.state_after_step(first, 1)->contributions).count == 1);  // it sent; rank 1 reduced
  CHECK(ranks_of(h.state_after_step(first, 2)->contributions).count == 2);  // the all-gather's copy
  CHECK(!h.last_writer(first, h.transfers_before_step(1), false));          // the pre-copy's
  CHECK(h.last_writer(first, s.transfers.size(), true) == std::optional<std::size_t>{2});
  CHECK(h.ranks_ever(first) == 0b11);
}

TEST_CASE("buffer history: a failed check keeps what it recorded up to the failure") {
  const Schedule s = two_rank_ring(false, true);  // transfer #4 adds rank 1's contribution twice
  std::optional<CheckError> error;
  const BufferHistory h = BufferHistory::record_until_error(s, error);
  REQUIRE(error);
  CHECK(error->kind == CheckErrorKind::double_contribution);
  const int row = h.row_of(0, BufferKind::output);
  const auto [first, last] = h.cells_in(row, 1, 2);
  REQUIRE(last == first + 1);
  CHECK(h.last_writer(first, s.transfers.size(), true) == std::optional<std::size_t>{1});  // not #4
  // The checker cuts its buffers where the schedule's regions do (chunk by chunk here).
  const std::vector<HistoryPiece> before = h.pieces(out(0, 0, 2), 0, false);
  REQUIRE(before.size() == 2);
  CHECK(before[0].end == 1);
  CHECK(before[1].change->transfer == kInitialState);
  const std::vector<HistoryPiece> at_end = h.pieces(out(0, 0, 2), s.transfers.size(), true);
  REQUIRE(at_end.size() == 2);
  CHECK(at_end[0].change->transfer == 2);  // the all-gather's copy
  CHECK(at_end[1].change->transfer == 1);  // the reduce-scatter's reduce: #4 failed
}

namespace {

// A 2-rank ring all-reduce of 2 elements whose reduce-scatter adds each receiver's input as
// it writes (reduce_copy): no pre-copies. `operand` of rank 1's reduce-copy replaces its input.
Schedule two_rank_reduce_copy_ring(std::optional<Transfer> (*tweak)(Transfer) = nullptr) {
  ScheduleBuilder b(all_reduce(2, 2), "hand-made");
  b.step("reduce-scatter 1/1");
  b.reduce_copy(0, in(0, 0, 1), in(1, 0, 1), out(1, 0, 1));
  b.reduce_copy(1, in(1, 1, 1), in(0, 1, 1), out(0, 1, 1));
  b.step("all-gather 1/1");
  b.copy(0, out(1, 0, 1), out(0, 0, 1));
  b.copy(1, out(0, 1, 1), out(1, 1, 1));
  Schedule s = std::move(b).finish();
  if (tweak)
    if (const std::optional<Transfer> t = tweak(s.transfers[0])) s.transfers[0] = *t;
  return s;
}

}  // namespace

TEST_CASE("checker: a reduce_copy writes the sum of its operand and its source, with no pre-copy") {
  const Schedule s = two_rank_reduce_copy_ring();
  REQUIRE(s.transfers[0].action == Action::reduce_copy);
  CHECK(s.pre_ops.empty());
  CHECK_NOTHROW(check_schedule(s));
  // The operand is a read: the all-gather's copy out of rank 1's output waits for the reduce_copy,
  // and a write into the operand's place after it would wait for it too.
  CHECK(describe_transfer(s, 0) ==
        "step 1 (reduce-scatter 1/1), transfer #0: rank 0 input[0,1) -> rank 1 output[0,1) reduce_copy with rank 1 "
        "input[0,1)");
}

TEST_CASE("checker: a reduce_copy's bad operands are rejected") {
  // Out of the buffer.
  CHECK(failure_of(two_rank_reduce_copy_ring([](Transfer t) -> std::optional<Transfer> {
          t.operand_offset = 2;
          return t;
        })).find("rank 1 input[2,3) lies outside the buffer (2 elements)") != std::string::npos);
  // Partly over its destination: the result would depend on the order of the writes.
  ScheduleBuilder b(all_reduce(2, 4), "hand-made");
  b.pre_copy(in(1, 0, 4), out(1, 0, 4));
  b.step("overlap");
  b.reduce_copy(0, in(0, 0, 2), out(1, 1, 2), out(1, 0, 2));
  const std::string msg = failure_of(std::move(b).finish());
  CHECK(msg.find("its operand rank 1 output[1,3) overlaps its destination in part") != std::string::npos);
  // Never written (scratch).
  ScheduleBuilder c(all_reduce(2, 2), "hand-made");
  c.set_scratch(1, 2);
  c.step("from nothing");
  c.reduce_copy(0, in(0, 0, 2), {1, BufferKind::scratch, 0, 2}, out(1, 0, 2));
  CHECK(failure_of(std::move(c).finish()).find("reads rank 1 scratch[0,2) before anything was written there") !=
        std::string::npos);
  // An operand that already holds the source's contribution counts it twice.
  CHECK(failure_of(two_rank_reduce_copy_ring([](Transfer t) -> std::optional<Transfer> {
          t.src = 1;  // rank 1's own input added to itself
          return t;
        })).find("count it twice") != std::string::npos);
}

TEST_CASE("checker: the operand is the receiver's: the builder refuses another rank's, exactly the destination is a reduce") {
  ScheduleBuilder b(all_reduce(2, 2), "hand-made");
  b.step("s");
  CHECK_THROWS_AS(b.reduce_copy(0, in(0, 0, 1), in(0, 0, 1), out(1, 0, 1)), std::logic_error);
  // The operand is the destination: an ordinary reduce.
  b.pre_copy(in(1, 0, 2), out(1, 0, 2));
  b.reduce_copy(0, in(0, 0, 2), out(1, 0, 2), out(1, 0, 2));
  const Schedule s = std::move(b).finish();
  REQUIRE(s.transfers.size() == 1);
  CHECK(s.transfers[0].action == Action::reduce);
  // In place the input is the output: the ring's reduce_copy becomes a reduce there too.
  CollectiveSpec spec = all_reduce(4, 8);
  spec.in_place = true;
  const Schedule ring = build_schedule(spec, "ring", {});
  for (const Transfer& t : ring.transfers) CHECK(t.action != Action::reduce_copy);
  CHECK_NOTHROW(check_schedule(ring));
}
