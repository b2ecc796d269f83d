// CSV fields for the exporters (trace.cpp, program_trace.cpp, bench_model.cpp).
#pragma once
#include <string>
#include <string_view>

namespace collsim {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
inline std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace collsim
