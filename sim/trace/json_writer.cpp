#include "sim/trace/json_writer.h"

namespace collsim::json_layout {
namespace {

bool all_scalars(const ojson& j) {
  for (const ojson& v : j)
    if (v.is_structured()) return false;
  return true;
}

bool all_numbers_or_bools(const ojson& j) {
  for (const ojson& v : j)
    if (!v.is_number() && !v.is_boolean()) return false;
  return true;
}

void write_multiline(std::string& out, const ojson& j, int level) {
  const bool object = j.is_object();
  out += object ? "{\n" : "[\n";
  std::size_t i = 0;
  for (const auto& item : j.items()) {
    out += ObjectWriter::indentation(level + 1);
    if (object) out += dump_scalar(item.key()) + ": ";
    write_value(out, item.value(), level + 1);
    out += ++i < j.size() ? ",\n" : "\n";
  }
  out += ObjectWriter::indentation(level) + (object ? "}" : "]");
}

}  // namespace

std::string dump_scalar(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }

void write_inline(std::string& out, const ojson& j) {
  if (!j.is_structured()) {
    out += dump_scalar(j);
    return;
  }
  const bool object = j.is_object();
  out += object ? '{' : '[';
  bool first = true;
  for (const auto& item : j.items()) {
    out += first ? "" : ", ";
    if (object) out += dump_scalar(item.key()) + ": ";
    write_inline(out, item.value());
    first = false;
  }
  out += object ? '}' : ']';
}

void write_value(std::string& out, const ojson& j, int level) {
  const bool one_line = !j.is_structured() || (j.is_object() && all_scalars(j)) ||
                        (j.is_array() && all_numbers_or_bools(j));
  if (one_line)
    write_inline(out, j);
  else
    write_multiline(out, j, level);
}

ObjectWriter::ObjectWriter(std::string& out, int level) : out_(out), level_(level) { out_ += "{\n"; }

void ObjectWriter::add(std::string_view key, const ojson& value) {
  start(key);
  write_value(out_, value, level_ + 1);
}

ObjectWriter ObjectWriter::open(std::string_view key) {
  start(key);
  return ObjectWriter(out_, level_ + 1);
}

void ObjectWriter::close() { out_.append("\n").append(indentation(level_)).append("}"); }

void ObjectWriter::start(std::string_view key) {
  out_ += members_++ ? ",\n" : "";
  out_ += indentation(level_ + 1) + dump_scalar(std::string(key)) + ": ";
}

}  // namespace collsim::json_layout
