#include "sim/core/nearest_name.h"

#include <algorithm>
#include <utility>

namespace collsim {

namespace {

// Edits from a to b, a swap of two neighbours counting as one ("rnu" is one from "run").
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string nearest_name(std::string_view typed, const std::vector<std::string>& choices) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, typed.size() / 3) + 1;
  for (const std::string& choice : choices) {
    // "--chrome-trace" for --chrome, "al" for all_reduce: near, whatever their lengths.
    const bool extends = choice.size() >= 5 && typed.starts_with(choice);
    const bool begins = typed.size() >= 2 && choice.starts_with(typed);
    const std::size_t d = extends || begins ? 1 : edit_distance(typed, choice);
    if (d < best_distance) {
      best_distance = d;
      best = choice;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& choices) {
  const std::string near = nearest_name(typed, choices);
  return near.empty() ? std::string() : "; did you mean " + near + "?";
}

std::vector<std::string> words_of(std::string_view list) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : list) {
    if (c == ' ' || c == ',') {
      if (!word.empty()) words.push_back(std::exchange(word, {}));
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

}  // namespace collsim
