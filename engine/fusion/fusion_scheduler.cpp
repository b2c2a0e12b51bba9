// Greedy fusion as Inductor does it: candidate pairs are scheduler-node groups that touch a common
// buffer; they are scored by shared buffers, then by closeness, and fused when legal.

#include "fxscope/fusion/fusion_scheduler.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>

namespace fxscope::fusion {
namespace {

struct Group {
  std::vector<std::size_t> members;    // sorted
  std::vector<std::int64_t> buffers;   // sorted: read or written
  std::vector<std::int64_t> indirect;  // sorted: read through indirect indexing
  std::vector<std::int64_t> writes;    // sorted
  std::int64_t numel = 1;
  std::int64_t rnumel = 1;
  bool reduction = false;
  bool no_prologue = false;
  bool alive = true;
};

class Fuser {
 public:
  Fuser(const LoweredGraph& lowered, const PlanOptions& options)
      : nodes_(lowered.nodes), options_(options), groups_(nodes_.size()) {
    std::map<std::int64_t, std::size_t> writer;
    for (std::size_t i = 0; i < nodes_.size(); ++i) writer[nodes_[i].buffer] = i;
    succs_.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const SchedulerNode& s = nodes_[i];
      Group& g = groups_[i];
      g.members = {i};
      g.buffers = s.reads;
      g.buffers.push_back(s.buffer);
      std::sort(g.buffers.begin(), g.buffers.end());
      g.buffers.erase(std::unique(g.buffers.begin(), g.buffers.end()), g.buffers.end());
      g.indirect = s.indirect_reads;
      g.writes = {s.buffer};
      g.numel = s.numel;
      g.rnumel = s.rnumel;
      g.reduction = s.reduction;
      g.no_prologue = s.no_prologue;
      for (const std::int64_t b : s.reads) {
        const auto w = writer.find(b);
        if (w != writer.end() && w->second != i) succs_[w->second].push_back(i);
      }
    }
    owner_.resize(nodes_.size());
    std::iota(owner_.begin(), owner_.end(), std::size_t{0});
  }

  std::vector<std::vector<std::size_t>> run() {
    for (int round = 0; round < options_.fusion_rounds; ++round) {
      if (!fuse_once()) break;
    }
    std::vector<std::vector<std::size_t>> out;
    for (const Group& g : groups_) {
      if (g.alive) out.push_back(g.members);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.front() < b.front(); });
    return out;
  }

 private:
  bool fuse_once() {
    std::map<std::int64_t, std::vector<std::size_t>> by_buffer;
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      if (!groups_[gi].alive || !fusable(gi)) continue;
      // A dependency through indirect indexing equals no other: it shares no data.
      for (const std::int64_t b : groups_[gi].buffers) {
        if (!std::binary_search(groups_[gi].indirect.begin(), groups_[gi].indirect.end(), b)) {
          by_buffer[b].push_back(gi);
        }
      }
    }
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> shared;
    for (auto& [buffer, list] : by_buffer) {
      std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
        return groups_[a].members.front() < groups_[b].members.front();
      });
      for (std::size_t x = 0; x < list.size(); ++x) {
        const std::size_t end = std::min(list.size(), x + 1 + options_.max_group_nodes);
        for (std::size_t y = x + 1; y < end; ++y) ++shared[{list[x], list[y]}];
      }
    }
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::size_t>> pairs(shared.begin(),
                                                                                   shared.end());
    const auto distance = [&](const std::pair<std::size_t, std::size_t>& p) {
      const auto a = static_cast<std::int64_t>(groups_[p.first].members.front());
      const auto b = static_cast<std::int64_t>(groups_[p.second].members.front());
      return a > b ? a - b : b - a;
    };
    std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second > b.second;
      return distance(a.first) < distance(b.first);
    });
    bool fused = false;
    for (const auto& [pair, count] : pairs) {
      const std::size_t a = find(pair.first);
      const std::size_t b = find(pair.second);
      if (a == b || !can_fuse(a, b)) continue;
      merge(a, b);
      fused = true;
    }
    return fused;
  }

  bool fusable(std::size_t gi) const {
    return std::all_of(groups_[gi].members.begin(), groups_[gi].members.end(),
                       [&](std::size_t m) { return nodes_[m].fusable; });
  }

  std::size_t find(std::size_t gi) {
    while (owner_[gi] != gi) gi = owner_[gi] = owner_[owner_[gi]];
    return gi;
  }

  bool can_fuse(std::size_t a, std::size_t b) const {
    const Group& ga = groups_[a];
    const Group& gb = groups_[b];
    if (ga.members.size() + gb.members.size() > options_.max_group_nodes) return false;
    if (!shapes_fit(ga, gb)) return false;
    if (reads_indirectly(ga, gb) || reads_indirectly(gb, ga)) return false;
    if (!depends(a, b) && !depends(b, a) && span(ga, gb) > options_.horizontal_window) return false;
    return !creates_cycle(a, b);
  }

  // Pointwise with pointwise: equal numel; reductions: equal numel and rnumel; a pointwise
  // with a reduction: inside its loop (numel x rnumel) or as its epilogue (numel).
  static bool shapes_fit(const Group& a, const Group& b) {
    if (a.reduction == b.reduction) return a.numel == b.numel && a.rnumel == b.rnumel;
    const Group& red = a.reduction ? a : b;
    const Group& pw = a.reduction ? b : a;
    return (pw.numel == red.numel * red.rnumel && !red.no_prologue) || pw.numel == red.numel;
  }

  // Scheduler.can_fuse_vertical: a consumer loading a producer's buffer through indirect
  // indexing reads addresses the producer's write does not match ("memory deps did not match").
  static bool reads_indirectly(const Group& producer, const Group& consumer) {
    for (const std::int64_t b : consumer.indirect) {
      if (std::binary_search(producer.writes.begin(), producer.writes.end(), b)) return true;
    }
    return false;
  }

  static std::int64_t span(const Group& a, const Group& b) {
    const auto d = [](std::size_t x, std::size_t y) {
      return x > y ? static_cast<std::int64_t>(x - y) : static_cast<std::int64_t>(y - x);
    };
    return std::max(d(a.members.front(), b.members.back()), d(b.members.front(), a.members.back()));
  }

  // Whether a member of group FROM writes a buffer a member of group TO reads.
  bool depends(std::size_t from, std::size_t to) const {
    for (const std::size_t m : groups_[from].members) {
      for (const std::size_t s : succs_[m]) {
        if (std::binary_search(groups_[to].members.begin(), groups_[to].members.end(), s)) {
          return true;
        }
      }
    }
    return false;
  }

  // A path from one group to the other through a node of neither would become a cycle. Nodes
  // are in topological order, so the search stops past the target's last member.
  bool creates_cycle(std::size_t a, std::size_t b) const {
    return reaches_through_other(a, b) || reaches_through_other(b, a);
  }

  bool reaches_through_other(std::size_t from, std::size_t to) const {
    const Group& target = groups_[to];
    const auto in = [](const Group& g, std::size_t m) {
      return std::binary_search(g.members.begin(), g.members.end(), m);
    };
    const std::size_t last = target.members.back();
    std::vector<std::size_t> stack;
    for (const std::size_t m : groups_[from].members) {
      for (const std::size_t s : succs_[m]) {
        if (!in(target, s) && !in(groups_[from], s) && s < last) stack.push_back(s);
      }
    }
    std::vector<bool> seen(nodes_.size(), false);
    while (!stack.empty()) {
      const std::size_t x = stack.back();
      stack.pop_back();
      if (seen[x]) continue;
      seen[x] = true;
      for (const std::size_t s : succs_[x]) {
        if (in(target, s)) return true;
        if (s < last && !in(groups_[from], s)) stack.push_back(s);
      }
    }
    return false;
  }

  static std::vector<std::int64_t> merged(const std::vector<std::int64_t>& a,
                                          const std::vector<std::int64_t>& b) {
    std::vector<std::int64_t> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
  }

  void merge(std::size_t a, std::size_t b) {
    Group& ga = groups_[a];
    Group& gb = groups_[b];
    std::vector<std::size_t> members;
    std::merge(ga.members.begin(), ga.members.end(), gb.members.begin(), gb.members.end(),
               std::back_inserter(members));
    ga.members = std::move(members);
    std::vector<std::int64_t> buffers;
    std::set_union(ga.buffers.begin(), ga.buffers.end(), gb.buffers.begin(), gb.buffers.end(),
                   std::back_inserter(buffers));
    ga.buffers = std::move(buffers);
    ga.indirect = merged(ga.indirect, gb.indirect);
    ga.writes = merged(ga.writes, gb.writes);
    if (gb.reduction && !ga.reduction) {
      ga.numel = gb.numel;
      ga.rnumel = gb.rnumel;
      ga.reduction = true;
    }
    ga.no_prologue = ga.no_prologue || gb.no_prologue;
    gb.alive = false;
    owner_[b] = a;
  }

  const std::vector<SchedulerNode>& nodes_;
  const PlanOptions& options_;
  std::vector<Group> groups_;
  std::vector<std::vector<std::size_t>> succs_;
  std::vector<std::size_t> owner_;
};

}  // namespace

std::vector<std::vector<std::size_t>> fuse_nodes(const LoweredGraph& lowered,
                                                 const PlanOptions& options) {
  return Fuser(lowered, options).run();
}

}  // namespace fxscope::fusion
