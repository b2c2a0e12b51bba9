#include "fxscope/inductor/name_sets.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace fxscope::inductor {

namespace {

void sort_unique(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

}  // namespace

NameSets::NameSets(std::vector<NameSet> entries) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const NameSet& a, const NameSet& b) { return a.key < b.key; });
  for (NameSet& entry : entries) {
    if (!entries_.empty() && entries_.back().key == entry.key) {
      std::move(entry.names.begin(), entry.names.end(), std::back_inserter(entries_.back().names));
    } else {
      entries_.push_back(std::move(entry));
    }
  }
  for (NameSet& entry : entries_) sort_unique(entry.names);
}

const std::vector<std::string>* NameSets::find(std::string_view key) const {
  const auto it = std::lower_bound(
      entries_.begin(), entries_.end(), key,
      [](const NameSet& entry, std::string_view k) { return std::string_view(entry.key) < k; });
  return it != entries_.end() && it->key == key ? &it->names : nullptr;
}

}  // namespace fxscope::inductor
