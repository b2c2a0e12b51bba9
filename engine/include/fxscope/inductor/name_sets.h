#pragma once
// A flat, sorted map from a name to a sorted set of names, so that two node sets compare with ==.

#include <string>
#include <string_view>
#include <vector>

namespace fxscope::inductor {

// One key and its names, sorted and without duplicates.
struct NameSet {
  std::string key;
  std::vector<std::string> names;
};

// Name -> names, sorted by key; lookups are binary searches.
class NameSets {
 public:
  NameSets() = default;
  // Sorts ENTRIES and their names; a key given twice has the union of its names.
  explicit NameSets(std::vector<NameSet> entries);

  // The names of KEY, or nullptr when KEY is absent.
  const std::vector<std::string>* find(std::string_view key) const;
  const std::vector<NameSet>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }

 private:
  std::vector<NameSet> entries_;
};

}  // namespace fxscope::inductor
