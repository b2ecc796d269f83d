#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/text_file.h"
#include "sim/core/types.h"
#include "test_support.h"

using namespace collsim;

TEST_CASE("parse_count accepts plain numbers and K/M/G suffixes as powers of 1024") {
  CHECK(parse_count("0") == 0u);
  CHECK(parse_count("1000003") == 1000003u);
  CHECK(parse_count("1K") == 1024u);
  CHECK(parse_count("1k") == 1024u);
  CHECK(parse_count("3M") == 3u * 1024 * 1024);
  CHECK(parse_count("2G") == 2ull << 30);
  CHECK(parse_count("4KiB") == 4096u);
}

TEST_CASE("parse_count rejects negative, junk, empty and overflowing counts") {
  CHECK_FALSE(parse_count(""));
  CHECK_FALSE(parse_count("-5"));
  CHECK_FALSE(parse_count("12X"));
  CHECK_FALSE(parse_count("K"));
  CHECK_FALSE(parse_count("1.5M"));
  CHECK_FALSE(parse_count("99999999999999999999"));
  CHECK_FALSE(parse_count("17179869184G"));  // 2^34 * 2^30 overflows 64 bits
}

TEST_CASE("parse_number reads a whole decimal number and nothing else") {
  CHECK(parse_number("2.5") == 2.5);
  CHECK(parse_number("-4") == -4.0);
  CHECK(parse_number("1e3") == 1000.0);
  CHECK(parse_number("0") == 0.0);
  CHECK_FALSE(parse_number(""));
  CHECK_FALSE(parse_number(" 2"));
  CHECK_FALSE(parse_number("2 "));
  CHECK_FALSE(parse_number("+2"));
  CHECK_FALSE(parse_number("0x10"));
  CHECK_FALSE(parse_number("2 GB"));
  CHECK_FALSE(parse_number("abc"));
}

TEST_CASE("names round-trip through parse and to_string") {
  for (Collective c : kAllCollectives) CHECK(parse_collective(to_string(c)) == c);
  for (DataType t : kAllDataTypes) CHECK(parse_data_type(to_string(t)) == t);
  for (ReduceOp op : kAllReduceOps) CHECK(parse_reduce_op(to_string(op)) == op);
  CHECK_FALSE(parse_collective("allreduce"));
  CHECK_FALSE(parse_data_type("f8"));
}

TEST_CASE("buffer sizes follow the buffer table of the design document") {
  CollectiveSpec s{Collective::all_gather, 4, 10, DataType::f32, ReduceOp::sum, 1};
  CHECK(input_elements(s, "", 0) == 10);
  CHECK(output_elements(s, "", 0) == 40);
  s.collective = Collective::reduce_scatter;
  CHECK(input_elements(s, "", 2) == 40);
  CHECK(output_elements(s, "", 2) == 10);
  s.collective = Collective::gather;
  CHECK(output_elements(s, "", 1) == 40);
  CHECK(output_elements(s, "", 0) == 0);
  s.collective = Collective::scatter;
  CHECK(input_elements(s, "", 1) == 40);
  CHECK(input_elements(s, "", 0) == 0);
  CHECK(output_elements(s, "", 4) == 0);  // beyond the ranks: extra server ranks hold none
}

TEST_CASE("busbw factors are nccl-tests'") {
  CHECK(busbw_factor(Collective::all_reduce, 4) == doctest::Approx(1.5));
  CHECK(busbw_factor(Collective::all_gather, 4) == doctest::Approx(0.75));
  CHECK(busbw_factor(Collective::broadcast, 4) == doctest::Approx(1.0));
}

TEST_CASE("bandwidth: algbw is algorithm bytes per ns, busbw scales it, no figure for no time or a barrier") {
  const CollectiveSpec ring{Collective::all_reduce, 4, 1000, DataType::f32, ReduceOp::sum, 0};  // 4000 bytes
  const Bandwidth bw = bandwidth(ring, 2000.0);
  REQUIRE(bw.algbw_gbps);
  REQUIRE(bw.busbw_gbps);
  CHECK(*bw.algbw_gbps == doctest::Approx(4000.0 / 2000.0));
  CHECK(*bw.busbw_gbps == doctest::Approx(4000.0 / 2000.0 * 2 * 3 / 4));
  // Fractions of a ns are kept (predicted times are fractional).
  CHECK(*bandwidth(ring, 0.5).algbw_gbps == doctest::Approx(8000.0));
  for (double t : {0.0, -1.0}) {
    CAPTURE(t);
    CHECK_FALSE(bandwidth(ring, t).algbw_gbps);
    CHECK_FALSE(bandwidth(ring, t).busbw_gbps);
  }
  const CollectiveSpec barrier{Collective::barrier, 4, 1, DataType::i32, ReduceOp::max, 0};
  CHECK_FALSE(bandwidth(barrier, 2000.0).algbw_gbps);
  CHECK_FALSE(bandwidth(barrier, 2000.0).busbw_gbps);
}

TEST_CASE("format_bytes and format_duration_ns") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.50 KiB");
  CHECK(format_bytes(4 << 20) == "4 MiB");
  CHECK(format_duration_ns(1500) == "1.500 us");
  CHECK(format_duration_ns(2.5e6) == "2.500 ms");
}

TEST_CASE("read_text_file returns the bytes as they are, and names the file and the reason when it cannot") {
  const auto dir = std::filesystem::temp_directory_path() / "collsim_test_read_text_file";
  std::filesystem::create_directories(dir);
  const auto file = dir / "f.txt";
  const std::string bytes = "a = 1\r\nb = \"\xc2\xb5\"";  // CR LF, UTF-8, no final newline
  std::ofstream(file, std::ios::binary) << bytes;
  CHECK(read_text_file(file, "widget file") == bytes);
  std::ofstream(file, std::ios::binary | std::ios::trunc).flush();
  CHECK(read_text_file(file, "widget file").empty());

  const auto missing = dir / "missing.txt";
  CHECK(testing::input_error([&] { read_text_file(missing, "widget file"); }) ==
        missing.string() + ": cannot read the widget file: " + std::strerror(ENOENT));
  CHECK(testing::input_error([&] { read_text_file(dir, "widget file"); }) ==
        dir.string() + ": cannot read the widget file: it is a folder");
  std::filesystem::remove_all(dir);
}

TEST_CASE("largest_power_of_two is N' = 2^floor(lg N), 0 for no ranks") {
  for (int n = 1; n <= 1100; ++n) {
    int want = 1;  // by doubling, the way the fold-in's definition reads
    while (want * 2 <= n) want *= 2;
    CAPTURE(n);
    CHECK(largest_power_of_two(n) == want);
  }
  CHECK(largest_power_of_two(1 << 30) == 1 << 30);
  CHECK(largest_power_of_two(0) == 0);
  CHECK(largest_power_of_two(-5) == 0);
}

TEST_CASE("kAllBufferKinds lists each buffer kind once, in order, each with its own name") {
  REQUIRE(std::size(kAllBufferKinds) == 3);
  for (std::size_t i = 0; i < std::size(kAllBufferKinds); ++i) CHECK(static_cast<std::size_t>(kAllBufferKinds[i]) == i);
  CHECK(to_string(BufferKind::input) == "input");
  CHECK(to_string(BufferKind::output) == "output");
  CHECK(to_string(BufferKind::scratch) == "scratch");
}
