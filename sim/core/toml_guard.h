// What every TOML text passes before toml++ sees it (toml_fields::parse_toml calls it).
//
// Why: Debian's toml++ 3.3 has undefined behaviour on some malformed files where it should
// report a parse error. A non-ASCII character where it expects whitespace (`format = 1 é`)
// reaches an "unreachable" point, and a table header whose key starts with neither a key
// character nor a quote (`[[[a]]]`, `[.a]`, a line break) fails an assertion: upstream
// tomlplusplus issue 190, PRs 301 and 305, not in Debian's 3.3. A '}' where an array needs a
// value (`a = [1, }]`), a date-time without a digit after its 'T', and a date, a space and
// a one-digit "time" (`1979-05-27 4 0`) fail three more assertions (found by tests/fuzz/).
// All are malformed
// TOML, so refusing them first costs a valid file nothing (docs/design.md, "Guarding a
// dependency"); toml++ then never sees them, in the release build either, where its
// assertions are off and the behaviour is simply undefined.
#pragma once
#include <string>
#include <string_view>

namespace collsim {

// Throws InputError "SOURCE:LINE:COLUMN: not valid TOML: ..." (columns counted in
// characters, as toml++ counts them) for: bytes that are not UTF-8; a non-ASCII character
// outside a string or a comment (TOML allows them nowhere else); a table header whose key
// does not start with a key character, a quote or `]`; a '}' where an array needs a value;
// a date-time whose 'T' is not followed by a digit, or a date, a space and a lone digit.
// A leading byte-order mark is fine.
void check_toml_text(std::string_view text, const std::string& source);

}  // namespace collsim
