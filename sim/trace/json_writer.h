// Internal to the JSON exporters (trace_json.cpp, trace_chrome.cpp): the layout shared by
// collsim's JSON files. Small objects go on one line and long arrays one element per
// line, so files read and diff well and long arrays are streamed element by element
// instead of being built as one huge tree. Include only from .cpp files that already pay
// for nlohmann-json: it is slow to compile (TOOLCHAIN.md).
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/model/topology.h"
#include "sim/run/run.h"

namespace collsim::json_layout {

using ojson = nlohmann::ordered_json;

// The `request` object of collsim's traces (docs/trace-format.md), written by the
// single-run trace (trace_json.cpp, which defines it) and the lesson trace alike.
ojson request_json(const RunRequest& r);
// A topology configuration in the words of a scenario's [topology] (its keys): the kind and
// what the configuration sets. Written by both traces (trace_json.cpp defines it).
ojson topology_config_json(const TopologyConfig& c);

// One scalar (or any value) in compact JSON; invalid UTF-8 is replaced, never thrown on.
std::string dump_scalar(const ojson& j);

// Appends `j` on one line, however deeply nested.
void write_inline(std::string& out, const ojson& j);

// Appends `j` with `level` as the indentation (two spaces each) of its closing bracket.
// Objects of scalars and arrays of numbers stay on one line; everything else gets one
// line per member.
void write_value(std::string& out, const ojson& j, int level);

// The members of one JSON object, written as they are added (commas and indentation).
class ObjectWriter {
 public:
  ObjectWriter(std::string& out, int level);

  void add(std::string_view key, const ojson& value);
  // An array of `n` elements made one at a time by make(i), each on one line.
  template <class MakeElement>
  void add_array(std::string_view key, std::size_t n, MakeElement&& make) {
    start(key);
    if (n == 0) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    for (std::size_t i = 0; i < n; ++i) {
      out_ += indentation(level_ + 2);
      write_inline(out_, make(i));
      out_ += i + 1 < n ? ",\n" : "\n";
    }
    out_ += indentation(level_ + 1) + "]";
  }
  // A nested object; the caller adds its members, then calls close() on it.
  ObjectWriter open(std::string_view key);
  void close();

  static std::string indentation(int level) { return std::string(static_cast<std::size_t>(level) * 2, ' '); }

 private:
  void start(std::string_view key);
  std::string& out_;
  int level_;
  int members_ = 0;
};

}  // namespace collsim::json_layout
