// The nearest valid name to a mistyped one, for messages that offer it ("unknown algorithm
// 'rng' ...; did you mean ring?"): the command line's flags, commands and values alike.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// The choice nearest to `typed`: at most a third of its length in edits (at least one; a swap
// of neighbours is one), or a choice it begins or ends a longer word with; empty when none.
std::string nearest_name(std::string_view typed, const std::vector<std::string>& choices);

// "; did you mean NAME?" for the nearest choice, or "" when none is near.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& choices);

// The words of a list written "a b c" or "a, b, c" (the lists messages already show).
std::vector<std::string> words_of(std::string_view list);

}  // namespace collsim
