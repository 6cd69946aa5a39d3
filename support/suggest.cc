#include "support/suggest.h"

#include <algorithm>
#include <cctype>

#include "support/quote.h"

namespace mlc {

namespace {

bool same_but_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Optimal string alignment distance (Damerau-Levenshtein without repeated
// edits of one substring), case-insensitive. Names are short: O(|a| |b|).
size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_name(std::string_view word, const std::vector<std::string>& known) {
  // Long input is no slip of a known name (and would cost |word| |name| to compare).
  if (word.empty() || word.size() > 64) return "";
  for (const std::string& k : known)
    if (same_but_case(word, k)) return k;
  const size_t limit = std::max<size_t>(1, word.size() / 4);
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& k : known)
    if (const size_t dist = edit_distance(word, k); dist < best_distance) {
      best = k;
      best_distance = dist;
    }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& known) {
  const std::string name = closest_name(word, known);
  return name.empty() ? "" : "; did you mean " + squote(name) + "?";
}

}  // namespace mlc
