// Greedy fusion as Inductor does it (Scheduler.fuse_nodes_once): candidate pairs are scheduler-node
// groups that touch a common buffer; they are ranked by score_fusion (kind of fusion, bytes of
// loads and stores they share, closeness) and fused when legal: enough shared bytes, and a
// consumer reading what its producer wrote at the addresses it was written.

#include "fxscope/fusion/fusion_scheduler.h"

#include "pointwise_tiling.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

namespace fxscope::fusion {
namespace {

struct Group {
  std::vector<std::size_t> members;    // sorted
  std::vector<std::int64_t> buffers;   // sorted: read or written
  std::vector<std::int64_t> indirect;  // sorted: read through indirect indexing
  std::vector<std::int64_t> writes;    // sorted
  // read_writes of Inductor's (fused) node: loads not satisfied by its own stores, and stores.
  std::vector<MemoryDep> read_deps;
  std::vector<MemoryDep> write_deps;
  bool template_gemm = false;
  std::int64_t numel = 1;
  std::int64_t rnumel = 1;
  bool reduction = false;
  bool no_prologue = false;
  bool alive = true;
  // The foreach lists whose elements it holds (sorted), all at position foreach_index: one
  // sub-kernel of a ForeachKernelSchedulerNode.
  std::vector<int> foreach_lists;
  std::size_t foreach_index = 0;
};

class Fuser {
 public:
  Fuser(const LoweredGraph& lowered, const PlanOptions& options)
      : nodes_(lowered.nodes),
        list_sizes_(lowered.foreach_list_sizes),
        options_(options),
        groups_(nodes_.size()) {
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
      g.read_deps = s.read_deps;
      g.write_deps = {s.write_dep};
      g.template_gemm = s.template_gemm;
      if (s.foreach_list >= 0) g.foreach_lists = {s.foreach_list};
      g.foreach_index = s.foreach_index;
      for (const std::int64_t b : s.reads) {
        const auto w = writer.find(b);
        if (w != writer.end() && w->second != i) succs_[w->second].push_back(i);
      }
      // A WeakDep orders the pair like a read, and only fusable_weak_dep (not modelled: the
      // mutation storing where the earlier reader loads) lets them fuse.
      weak_preds_.emplace_back();
      for (const std::int64_t b : s.after) {
        const auto w = writer.find(b);
        if (w == writer.end() || w->second == i) continue;
        succs_[w->second].push_back(i);
        weak_preds_.back().push_back(w->second);
      }
    }
    owner_.resize(nodes_.size());
    std::iota(owner_.begin(), owner_.end(), std::size_t{0});
    const std::size_t lists = list_sizes_.size();
    family_.resize(lists);
    std::iota(family_.begin(), family_.end(), std::size_t{0});
    family_min_.assign(lists, nodes_.size());
    family_max_.assign(lists, 0);
    family_open_.assign(lists, true);
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].foreach_list < 0) continue;
      const auto l = static_cast<std::size_t>(nodes_[i].foreach_list);
      family_min_[l] = std::min(family_min_[l], i);
      family_max_[l] = std::max(family_max_[l], i);
    }
  }

  std::vector<std::vector<std::size_t>> run() {
    for (int round = 0; round < options_.fusion_rounds; ++round) {
      if (!fuse_once()) break;
    }
    // Scheduler.fuse_nodes: loops are reordered to share data only in one more round once the
    // others fuse nothing more (is_reorder_round, under loop_ordering_after_fusion), so a
    // pointwise node that a reduction takes as its epilogue first keeps the reduction's loops.
    if (options_.memory_deps) {
      reorder_round_ = true;
      fuse_once();
    }
    std::vector<std::vector<std::size_t>> out;
    for (const Group& g : groups_) {
      if (g.alive) out.push_back(g.members);
    }
    std::sort(out.begin(), out.end(),
              [](const auto& x, const auto& y) { return x.front() < y.front(); });
    order_for_dependencies(nodes_, out);
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
    // get_possible_fusions checks the pairs buffer by buffer (checking one may reorder loops,
    // which later checks see): each pair once, where it first comes up.
    std::map<std::pair<std::size_t, std::size_t>, std::int64_t> candidates;
    std::vector<std::pair<std::size_t, std::size_t>> checked;
    for (auto& [buffer, list] : by_buffer) {
      std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
        return groups_[a].members.front() < groups_[b].members.front();
      });
      for (std::size_t x = 0; x < list.size(); ++x) {
        const std::size_t end = std::min(list.size(), x + 1 + options_.max_group_nodes);
        for (std::size_t y = x + 1; y < end; ++y) {
          if (candidates[{list[x], list[y]}]++ == 0) checked.emplace_back(list[x], list[y]);
        }
      }
    }
    struct Ranked {
      std::pair<std::size_t, std::size_t> pair;
      std::array<std::int64_t, 4> key;
    };
    std::vector<Ranked> pairs;
    pairs.reserve(candidates.size());
    for (const auto& pair : checked) {
      const std::int64_t count = candidates[pair];
      if (!options_.memory_deps) {
        // Without addresses: the pairs sharing most buffers first, then the closest.
        const auto x = static_cast<std::int64_t>(groups_[pair.first].members.front());
        const auto y = static_cast<std::int64_t>(groups_[pair.second].members.front());
        pairs.push_back({pair, {count, -(x > y ? x - y : y - x), 0, 0}});
        continue;
      }
      // get_possible_fusions keeps the legal pairs only, and checking one may reorder loops.
      if (!can_fuse(pair.first, pair.second, false)) continue;
      pairs.push_back({pair, fusion_key(pair.first, pair.second)});
    }
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const Ranked& a, const Ranked& b) { return a.key > b.key; });
    bool fused = false;
    for (const auto& [pair, key] : pairs) {
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

  bool can_fuse(std::size_t a, std::size_t b, bool check_cycle = true) {
    // _LoopMutationTracker: loops reordered while a pair is checked are restored when the fusion
    // is rejected, by can_fuse or, in the fusing pass, by will_fusion_create_cycle. A pointwise
    // node reordered towards a consumer it cannot fuse with (a cycle through a library call)
    // keeps its loops for the reductions it feeds.
    undo_.reset();
    if (legal(a, b) && (!check_cycle || !creates_cycle(a, b))) return true;
    if (undo_) {
      groups_[undo_->group].read_deps = std::move(undo_->read_deps);
      groups_[undo_->group].write_deps = std::move(undo_->write_deps);
      undo_.reset();
    }
    return false;
  }

  // Scheduler.can_fuse, without the cycle check.
  bool legal(std::size_t a, std::size_t b) {
    const Group& ga = groups_[a];
    const Group& gb = groups_[b];
    if (ga.members.size() + gb.members.size() > options_.max_group_nodes) return false;
    if (!foreach_fits(a, b)) return false;
    if (weakly_ordered(ga, gb) || weakly_ordered(gb, ga)) return false;
    if (!shapes_fit(ga, gb)) return false;
    if (reads_indirectly(ga, gb) || reads_indirectly(gb, ga)) return false;
    // Scheduler.can_fuse: too few shared bytes first try a loop reordering; the threshold then
    // bars horizontal fusions only (InductorChoices.can_fuse_horizontal).
    std::int64_t shared = options_.memory_deps ? shared_bytes(ga, gb) : 0;
    if (options_.memory_deps && reorder_round_ && shared < options_.score_fusion_memory_threshold) {
      shared = std::max(shared, reorder_to_share(a, b));
    }
    const bool a_to_b = depends(a, b);
    const bool b_to_a = depends(b, a);
    if (options_.memory_deps && !a_to_b && !b_to_a &&
        shared < options_.score_fusion_memory_threshold) {
      return false;
    }
    if (options_.memory_deps && a_to_b && !reads_match_writes(ga, gb)) return false;
    if (options_.memory_deps && b_to_a && !reads_match_writes(gb, ga)) return false;
    if (!a_to_b && !b_to_a && span(ga, gb) > options_.horizontal_window) return false;
    if (options_.memory_deps && ga.reduction != gb.reduction && !ga.template_gemm &&
        !gb.template_gemm) {
      const Group& red = ga.reduction ? ga : gb;
      const Group& pw = ga.reduction ? gb : ga;
      if (pw.numel == red.numel * red.rnumel &&
          detail::tiling_prevents_reduction_fusion(pw.read_deps, pw.write_deps, red.rnumel)) {
        return false;
      }
    }
    if (options_.memory_deps && !ga.reduction && !gb.reduction && !ga.template_gemm &&
        !gb.template_gemm && ga.foreach_lists.empty() && gb.foreach_lists.empty() &&
        detail::tiling_prevents_pointwise_fusion(ga.read_deps, ga.write_deps, gb.read_deps,
                                                 gb.write_deps)) {
      return false;
    }
    return true;
  }

  // ForeachKernelSchedulerNode.can_fuse, played per sub-kernel: two foreach nodes fuse pairwise,
  // the sub-kernels at one position together, and only when their lists are as long; a node of
  // no list joins the one sub-kernel it feeds or reads (get_consumer_subnode_for,
  // get_producer_subnode_for), never horizontally and never as a reduction. The sub-kernels of
  // one foreach node never fuse with each other.
  bool foreach_fits(std::size_t a, std::size_t b) const {
    const Group& ga = groups_[a];
    const Group& gb = groups_[b];
    if (ga.foreach_lists.empty() && gb.foreach_lists.empty()) return true;
    if (!ga.foreach_lists.empty() && !gb.foreach_lists.empty()) {
      if (ga.foreach_index != gb.foreach_index) return false;
      const std::size_t length = list_sizes_[static_cast<std::size_t>(ga.foreach_lists.front())];
      for (const Group* g : {&ga, &gb}) {
        for (const int l : g->foreach_lists) {
          if (list_sizes_[static_cast<std::size_t>(l)] != length) return false;
          if (g == &ga && std::binary_search(gb.foreach_lists.begin(), gb.foreach_lists.end(), l)) {
            return false;
          }
        }
      }
      return true;
    }
    const bool a_outside = ga.foreach_lists.empty();
    const Group& other = a_outside ? ga : gb;
    if (other.reduction) return false;
    const std::size_t outsider = a_outside ? a : b;
    const std::size_t foreach = a_outside ? b : a;
    // A foreach node made by fusing one with a node of no list keeps name_to_node but leaves
    // read_to_node empty (ForeachKernelSchedulerNode.__init__ with prev_node_1 and prev_node_2):
    // it still takes consumers, and no producer any more.
    if (depends(outsider, foreach)) return family_open_[family_of(groups_[foreach])];
    return depends(foreach, outsider);
  }

  std::size_t find_family(std::size_t l) {
    while (family_[l] != l) l = family_[l] = family_[family_[l]];
    return l;
  }
  std::size_t family_of(const Group& g) const {
    auto l = static_cast<std::size_t>(g.foreach_lists.front());
    while (family_[l] != l) l = family_[l];
    return l;
  }

  // Where a group sits in the node order for score_fusion's proximity: a foreach sub-kernel as
  // its whole foreach node, from its first node to its last (min_order, max_order).
  std::pair<std::size_t, std::size_t> extent(const Group& g) const {
    if (g.foreach_lists.empty()) return {g.members.front(), g.members.back()};
    const std::size_t f = family_of(g);
    return {family_min_[f], family_max_[f]};
  }

  std::int64_t proximity(const Group& a, const Group& b) const {
    const auto [a_lo, a_hi] = extent(a);
    const auto [b_lo, b_hi] = extent(b);
    const auto d = [](std::size_t x, std::size_t y) {
      return x > y ? static_cast<std::int64_t>(x - y) : static_cast<std::int64_t>(y - x);
    };
    return std::max(d(a_lo, b_hi), d(b_lo, a_hi));
  }

  // Scheduler._try_reorder_loops_for_candidates: of the buffers both groups touch that they
  // address alike but in different loop orders (a store and its load first, then the largest),
  // the pointwise group takes the other's loop order; the bytes shared after, or -1.
  std::int64_t reorder_to_share(std::size_t a, std::size_t b) {
    Group& ga = groups_[a];
    Group& gb = groups_[b];
    struct Candidate {
      bool write_read = false;
      std::int64_t bytes = 0;
      const MemoryDep* lhs = nullptr;
      const MemoryDep* rhs = nullptr;
    };
    const auto find_dep = [](const std::vector<MemoryDep>& deps, std::int64_t buffer) {
      const auto it = std::find_if(deps.begin(), deps.end(), [&](const MemoryDep& d) {
        return d.buffer == buffer && !d.opaque;
      });
      return it == deps.end() ? nullptr : &*it;
    };
    std::optional<Candidate> best;
    std::set<std::int64_t> buffers;
    for (const auto* deps : {&ga.read_deps, &ga.write_deps}) {
      for (const MemoryDep& d : *deps) buffers.insert(d.buffer);
    }
    for (const std::int64_t buffer : buffers) {
      const MemoryDep* aw = find_dep(ga.write_deps, buffer);
      const MemoryDep* ar = find_dep(ga.read_deps, buffer);
      const MemoryDep* bw = find_dep(gb.write_deps, buffer);
      const MemoryDep* br = find_dep(gb.read_deps, buffer);
      const MemoryDep* lhs = aw ? aw : ar;
      const MemoryDep* rhs = bw ? bw : br;
      if (!lhs || !rhs) continue;
      const bool write_read = (aw && br) || (bw && ar);
      if (same_stride_order(*lhs, *rhs)) {
        const Candidate c{write_read, lhs->bytes, lhs, rhs};
        if (!best || std::pair{c.write_read, c.bytes} > std::pair{best->write_read, best->bytes}) {
          best = c;
        }
      } else if (write_read) {
        // A store and its load that differ in how the loops are cut, not only in their order:
        // only re-indexing could match them.
        const std::vector<std::int64_t> w = loop_sizes(aw ? *aw : *bw);
        const std::vector<std::int64_t> r = loop_sizes(aw ? *br : *ar);
        for (const std::int64_t size : w) {
          if (std::find(r.begin(), r.end(), size) == r.end()) return -1;
        }
      }
    }
    if (!best) return -1;
    // Deps made over different numbers of loops (unmerged until fusion) are not reordered: they
    // count as shared when their merged addresses are one (MemoryDep.normalize), else nothing is.
    if (best->lhs->vars > 0 && best->rhs->vars > 0 && best->lhs->vars != best->rhs->vars) {
      return best->lhs->same_address(*best->rhs) ? best->lhs->bytes : -1;
    }
    // Only a pointwise group's loops are reordered.
    Group* moved = !ga.reduction ? &ga : !gb.reduction ? &gb : nullptr;
    if (moved == nullptr) return -1;
    const std::optional<LoopOrder> order = moved == &ga
                                               ? loop_order_to_match(*best->lhs, *best->rhs)
                                               : loop_order_to_match(*best->rhs, *best->lhs);
    if (!order) return -1;
    undo_ = Undo{moved == &ga ? a : b, moved->read_deps, moved->write_deps};
    for (auto* deps : {&moved->read_deps, &moved->write_deps}) {
      for (MemoryDep& d : *deps) d = reorder_loops(d, *order);
    }
    return shared_bytes(ga, gb);
  }

  // Scheduler.score_fusion, higher first: a fusion into a template's prologue last, one sharing
  // data with a non-template first node before the rest; then fusions of like kinds (both
  // reductions or neither) that share data; then the bytes shared; then the closer pair.
  std::array<std::int64_t, 4> fusion_key(std::size_t a, std::size_t b) const {
    const Group& ga = groups_[a];
    const Group& gb = groups_[b];
    const std::int64_t memory = shared_bytes(ga, gb);
    const std::int64_t kind = gb.template_gemm ? 0 : 1 + (!ga.template_gemm && memory > 0);
    const std::int64_t alike = ga.reduction == gb.reduction && memory > 0;
    return {kind, alike, memory, -proximity(ga, gb)};
  }

  // score_fusion_memory: the bytes of the loads and stores the two groups have in common.
  static std::int64_t shared_bytes(const Group& a, const Group& b) {
    std::int64_t bytes = 0;
    const auto in_b = [&](const MemoryDep& d) {
      const auto same = [&](const MemoryDep& e) { return e.same_as(d); };
      return std::any_of(b.read_deps.begin(), b.read_deps.end(), same) ||
             std::any_of(b.write_deps.begin(), b.write_deps.end(), same);
    };
    for (const MemoryDep& d : a.read_deps) {
      if (in_b(d)) bytes += d.bytes;
    }
    for (const MemoryDep& d : a.write_deps) {
      const auto same = [&](const MemoryDep& e) { return e.same_as(d); };
      // The union of loads and stores: a dep both loaded and stored counts once.
      if (in_b(d) && std::none_of(a.read_deps.begin(), a.read_deps.end(), same)) bytes += d.bytes;
    }
    return bytes;
  }

  // can_fuse_vertical: every load CONSUMER makes of a buffer PRODUCER stores reads it at the
  // address it was stored (fusable_read_and_write); a load elsewhere in it needs the whole
  // buffer first.
  static bool reads_match_writes(const Group& producer, const Group& consumer) {
    for (const MemoryDep& r : consumer.read_deps) {
      if (!std::binary_search(producer.writes.begin(), producer.writes.end(), r.buffer)) continue;
      const bool matched = std::any_of(producer.write_deps.begin(), producer.write_deps.end(),
                                       [&](const MemoryDep& w) { return r.reads_as_written(w); });
      if (!matched) return false;
    }
    return true;
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

  // Whether a member of group LATER mutates a buffer a member of group EARLIER reads.
  bool weakly_ordered(const Group& earlier, const Group& later) const {
    for (const std::size_t m : later.members) {
      for (const std::size_t p : weak_preds_[m]) {
        if (std::binary_search(earlier.members.begin(), earlier.members.end(), p)) return true;
      }
    }
    return false;
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
    // ReadWrites.merge_list: the stores of both; the loads of both but those of a store.
    for (MemoryDep& w : gb.write_deps) ga.write_deps.push_back(std::move(w));
    for (MemoryDep& r : gb.read_deps) ga.read_deps.push_back(std::move(r));
    std::vector<MemoryDep> reads;
    for (MemoryDep& r : ga.read_deps) {
      const auto same = [&](const MemoryDep& d) { return d.same_as(r); };
      if (std::any_of(ga.write_deps.begin(), ga.write_deps.end(), same)) continue;
      if (r.opaque) {
        const auto dup = [&](const MemoryDep& d) { return d.opaque && d.buffer == r.buffer; };
        if (std::any_of(reads.begin(), reads.end(), dup)) continue;
      } else if (std::any_of(reads.begin(), reads.end(), same)) {
        continue;
      }
      reads.push_back(std::move(r));
    }
    ga.read_deps = std::move(reads);
    gb.write_deps.clear();
    gb.read_deps.clear();
    ga.template_gemm = ga.template_gemm || gb.template_gemm;
    if (gb.reduction && !ga.reduction) {
      ga.numel = gb.numel;
      ga.rnumel = gb.rnumel;
      ga.reduction = true;
    }
    ga.no_prologue = ga.no_prologue || gb.no_prologue;
    if (!ga.foreach_lists.empty() && !gb.foreach_lists.empty()) {
      // ForeachKernelSchedulerNode.fuse of two foreach nodes: a node made afresh of the pairs.
      const std::size_t fa = find_family(static_cast<std::size_t>(ga.foreach_lists.front()));
      const std::size_t fb = find_family(static_cast<std::size_t>(gb.foreach_lists.front()));
      if (fa != fb) {
        family_[fb] = fa;
        family_min_[fa] = std::min(family_min_[fa], family_min_[fb]);
        family_max_[fa] = std::max(family_max_[fa], family_max_[fb]);
        family_open_[fa] = true;
      }
    } else if (!ga.foreach_lists.empty() || !gb.foreach_lists.empty()) {
      // A foreach node and a node of no list.
      const Group& sub = ga.foreach_lists.empty() ? gb : ga;
      const Group& outsider = ga.foreach_lists.empty() ? ga : gb;
      const std::size_t f = find_family(static_cast<std::size_t>(sub.foreach_lists.front()));
      family_min_[f] = std::min(family_min_[f], outsider.members.front());
      family_max_[f] = std::max(family_max_[f], outsider.members.back());
      family_open_[f] = false;
    }
    if (!gb.foreach_lists.empty()) {
      ga.foreach_index = gb.foreach_index;
      std::vector<int> lists;
      std::set_union(ga.foreach_lists.begin(), ga.foreach_lists.end(), gb.foreach_lists.begin(),
                     gb.foreach_lists.end(), std::back_inserter(lists));
      ga.foreach_lists = std::move(lists);
    }
    gb.alive = false;
    owner_[b] = a;
  }

  const std::vector<SchedulerNode>& nodes_;
  const std::vector<std::size_t>& list_sizes_;
  const PlanOptions& options_;
  std::vector<Group> groups_;
  std::vector<std::vector<std::size_t>> succs_;
  bool reorder_round_ = false;  // the last round, the only one that reorders loops
  std::vector<std::vector<std::size_t>> weak_preds_;  // per node: the nodes its WeakDeps name
  // The deps of the group whose loops the pair being checked reordered, as they were.
  struct Undo {
    std::size_t group = 0;
    std::vector<MemoryDep> read_deps;
    std::vector<MemoryDep> write_deps;
  };
  std::optional<Undo> undo_;
  std::vector<std::size_t> owner_;
  // The foreach nodes: lists fused into one, by union-find over list numbers; each one's first
  // and last node in the order, and whether it can still take a producer.
  std::vector<std::size_t> family_;
  std::vector<std::size_t> family_min_;
  std::vector<std::size_t> family_max_;
  std::vector<bool> family_open_;
};

}  // namespace

void order_for_dependencies(const std::vector<SchedulerNode>& nodes,
                            std::vector<std::vector<std::size_t>>& groups) {
  std::map<std::int64_t, std::vector<std::size_t>> writers;  // a buffer -> the groups writing it
  for (std::size_t k = 0; k < groups.size(); ++k) {
    for (const std::size_t m : groups[k]) writers[nodes[m].buffer].push_back(k);
  }
  std::vector<std::set<std::size_t>> next(groups.size());
  std::vector<std::size_t> waiting(groups.size(), 0);
  for (std::size_t k = 0; k < groups.size(); ++k) {
    for (const std::size_t m : groups[k]) {
      for (const auto* deps : {&nodes[m].reads, &nodes[m].after}) {
        for (const std::int64_t b : *deps) {
          const auto w = writers.find(b);
          if (w == writers.end()) continue;
          for (const std::size_t from : w->second) {
            if (from != k && next[from].insert(k).second) ++waiting[k];
          }
        }
      }
    }
  }
  std::set<std::size_t> ready;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (waiting[k] == 0) ready.insert(k);
  }
  std::vector<std::vector<std::size_t>> out;
  while (!ready.empty()) {
    const std::size_t k = *ready.begin();
    ready.erase(ready.begin());
    out.push_back(groups[k]);
    for (const std::size_t n : next[k]) {
      if (--waiting[n] == 0) ready.insert(n);
    }
  }
  // A cycle fusion should have refused: the order as given.
  if (out.size() == groups.size()) groups = std::move(out);
}

std::vector<std::vector<std::size_t>> fuse_nodes(const LoweredGraph& lowered,
                                                 const PlanOptions& options) {
  return Fuser(lowered, options).run();
}

}  // namespace fxscope::fusion
