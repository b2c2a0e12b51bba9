#include "fxscope/gpu/kernel_attribution.h"

#include <map>
#include <optional>

#include "fxscope/fusion/unit_fusion.h"

namespace fxscope::gpu {
namespace {

constexpr std::string_view kOpPrefix = "fxscope-op:";

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// "fxscope-op:3:addmm_1" -> "addmm_1".
std::string op_node(const std::string& range) {
  const auto colon = range.find(':', kOpPrefix.size());
  return colon == std::string::npos ? range : range.substr(colon + 1);
}

struct Assigned {
  std::string group;
  std::vector<std::string> nodes;
};

// Walks one repeat's compiled kernels in launch order: a Triton kernel is found by name; a
// library kernel takes the next extern kernel of the plan, or, when none is next or it is a
// split-K reduce, belongs to the extern call before it (cuBLAS may launch two kernels a GEMM).
class PlanWalk {
 public:
  // Starts on the plan of the repeat's first named kernel: library kernels before it belong to
  // that compile, not to another capture of the same graph in another mode.
  PlanWalk(const KernelIndex& index, const std::vector<const KernelRecord*>& repeat)
      : index_(index) {
    for (const KernelRecord* k : repeat) {
      const auto it = index_.by_name.find(k->name);
      if (it == index_.by_name.end()) continue;
      plan_ = it->second.first;
      break;
    }
  }

  std::optional<Assigned> next(const KernelRecord& k) {
    const auto it = index_.by_name.find(k.name);
    if (it != index_.by_name.end()) {
      plan_ = it->second.first;
      pos_ = it->second.second + 1;
      last_extern_.reset();
      const auto& pk = index_.plans[plan_][it->second.second];
      return Assigned{pk.name, pk.nodes};
    }
    if (index_.plans.empty()) return std::nullopt;
    const auto& plan = index_.plans[plan_];
    // cuBLAS's split-K reduce finishes the GEMM before it rather than starting the next one.
    const bool finishes_previous = last_extern_ && k.name.find("splitKreduce") != std::string::npos;
    if (!finishes_previous && pos_ < plan.size() && plan[pos_].is_extern) {
      last_extern_ = pos_++;
    }
    if (!last_extern_) return std::nullopt;
    return Assigned{plan[*last_extern_].name, plan[*last_extern_].nodes};
  }

 private:
  const KernelIndex& index_;
  std::size_t plan_ = 0;
  std::size_t pos_ = 0;
  std::optional<std::size_t> last_extern_;
};

// The innermost op range (eager) that holds host time T.
const MarkerRange* op_range_at(const std::vector<const MarkerRange*>& ops, std::uint64_t t) {
  const MarkerRange* best = nullptr;
  for (const auto* r : ops) {
    if (r->start <= t && t <= r->end && (!best || r->start >= best->start)) best = r;
  }
  return best;
}

}  // namespace

void KernelIndex::add_unit(const trace::CompileUnit& unit) {
  for (const auto& g : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
    std::vector<PlanKernel> plan;
    for (const auto& group : g.inductor.groups) {
      PlanKernel pk;
      pk.name = group.name;
      pk.is_extern = group.kind == fusion::GroupKind::extern_kernel;
      for (const auto id : group.nodes) pk.nodes.push_back(g.post_grad.node(id).name);
      by_name.emplace(pk.name, std::make_pair(plans.size(), plan.size()));
      plan.push_back(std::move(pk));
    }
    if (!plan.empty()) plans.push_back(std::move(plan));
  }
}

ModeMeasurement attribute_mode(const std::string& mode, const std::string& prefix,
                               const CuptiRecords& records, const KernelIndex& index) {
  ModeMeasurement m;
  m.mode = mode;
  std::vector<const MarkerRange*> repeats;
  std::vector<const MarkerRange*> ops;
  for (const auto& r : records.ranges) {
    if (starts_with(r.name, prefix)) repeats.push_back(&r);
    if (mode == "eager" && starts_with(r.name, kOpPrefix)) ops.push_back(&r);
  }
  m.repeats = repeats.size();
  if (repeats.empty()) return m;
  // Keyed by name and group, in order of first appearance.
  std::map<std::pair<std::string, std::string>, std::size_t> slot;
  for (std::size_t ri = 0; ri < repeats.size(); ++ri) {
    const MarkerRange& rep = *repeats[ri];
    std::vector<const KernelRecord*> in_repeat;
    bool any_graph = false;
    for (const auto& k : records.kernels) {
      const auto t = records.launched_at(k);
      if (t < rep.start || t > rep.end) continue;
      in_repeat.push_back(&k);
      any_graph = any_graph || k.graph != 0;
    }
    PlanWalk walk(index, in_repeat);
    for (const KernelRecord* k : in_repeat) {
      std::optional<Assigned> a;
      if (mode == "eager") {
        if (const MarkerRange* op = op_range_at(ops, records.launched_at(*k))) {
          const std::string node = op_node(op->name);
          a = Assigned{node, {node}};
        }
      } else if (!any_graph || k->graph != 0) {
        // Under CUDA graphs, kernels outside the graph copy inputs into its static buffers:
        // they belong to no node, and walking them would misplace the extern kernels.
        a = walk.next(*k);
      }
      const std::string group = a ? a->group : std::string();
      auto [it, fresh] = slot.emplace(std::make_pair(k->name, group), m.kernels.size());
      if (fresh) {
        MeasuredKernel mk;
        mk.name = k->name;
        mk.group = group;
        if (a) mk.nodes = a->nodes;
        mk.grid = k->grid;
        mk.block = k->block;
        m.kernels.push_back(std::move(mk));
      }
      MeasuredKernel& mk = m.kernels[it->second];
      mk.us += k->us();
      mk.calls += 1;
      mk.in_cuda_graph = mk.in_cuda_graph || k->graph != 0;
      m.kernel_us += k->us();
      if (a && !a->nodes.empty()) m.attributed_us += k->us();
      m.launches += 1;
      if (k->graph != 0) m.graph_launches += 1;
      if (ri == 0) m.timeline.push_back(*k);
    }
  }
  const double n = static_cast<double>(repeats.size());
  for (auto& k : m.kernels) {
    k.us /= n;
    k.calls /= n;
  }
  m.kernel_us /= n;
  m.attributed_us /= n;
  m.launches /= n;
  m.graph_launches /= n;
  return m;
}

}  // namespace fxscope::gpu
