#include "fxscope/gpu/kernel_attribution.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "fxscope/fusion/source_map.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/inductor/provenance.h"

namespace fxscope::gpu {
namespace {

constexpr std::string_view kOpPrefix = "fxscope-op:";
constexpr std::string_view kCopyPrefix = "fxscope-copy:";

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// "fxscope-op:3:addmm_1" -> "addmm_1".
std::string op_node(const std::string& range) {
  const auto colon = range.find(':', kOpPrefix.size());
  return colon == std::string::npos ? range : range.substr(colon + 1);
}

// "fxscope-copy:primals_3,primals_5" -> {"primals_3", "primals_5"}.
std::vector<std::string> copied_inputs(const std::string& range) {
  std::vector<std::string> out;
  std::string_view rest = std::string_view(range).substr(kCopyPrefix.size());
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    out.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
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

// The last copy range of repeat REP that started before host time T.
const MarkerRange* copies_before(const std::vector<const MarkerRange*>& copies,
                                 const MarkerRange& rep, std::uint64_t t) {
  const MarkerRange* last = nullptr;
  for (const auto* c : copies) {
    if (c->start >= rep.start && c->start <= t && (!last || c->start > last->start)) last = c;
  }
  return last;
}

// A kernel outside the CUDA graph of a graph replay: the generator's seed and offset fills
// (int64 fill kernels) belong to the RNG nodes, anything else to the inputs the copy before it
// named. Copies run asynchronously, so a copy kernel may start after its range ended.
std::optional<Assigned> outside_graph(const KernelRecord& k, const MarkerRange* copy,
                                      const KernelIndex& index) {
  if (k.name.find("FillFunctor<long>") != std::string::npos && !index.rng_nodes.empty()) {
    return Assigned{kCudaGraphRngState, index.rng_nodes};
  }
  if (copy) return Assigned{kCudaGraphInputCopy, copied_inputs(copy->name)};
  return std::nullopt;
}

// The placeholders of GRAPH in order.
std::vector<std::string> placeholders(const graph::Graph& g) {
  std::vector<std::string> out;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (g.node(id).op == graph::OpKind::placeholder) out.push_back(g.node(id).name);
  }
  return out;
}

// The innermost op range (eager) that holds time T.
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
    std::vector<std::string> seeds;
    for (graph::NodeId id = 0; id < g.post_grad.size(); ++id) {
      const graph::Node& node = g.post_grad.node(id);
      if (node.target.find("inductor_seeds") != std::string::npos) seeds.push_back(node.name);
    }
    for (const auto& n : seeds) {
      if (std::find(rng_nodes.begin(), rng_nodes.end(), n) == rng_nodes.end())
        rng_nodes.push_back(n);
    }
    std::vector<PlanKernel> plan;
    for (const auto& group : g.inductor.groups) {
      PlanKernel pk;
      pk.name = group.name;
      pk.is_extern = group.kind == fusion::GroupKind::extern_kernel;
      for (const auto id : group.nodes) pk.nodes.push_back(g.post_grad.node(id).name);
      // Inductor lowers the seeds op to a randint call the output code names by its ATen op.
      if (pk.nodes.empty() && pk.name.find("randint") != std::string::npos) pk.nodes = seeds;
      by_name.emplace(pk.name, std::make_pair(plans.size(), plan.size()));
      plan.push_back(std::move(pk));
    }
    if (!plan.empty()) plans.push_back(std::move(plan));
  }
}

void KernelIndex::add_dynamo_map(const trace::CompileUnit& unit) {
  const trace::Artifact* user = unit.dynamo_graph();
  if (!user) return;
  const graph::Graph dynamo = graph::parse_fx_readable(user->payload.text(), user->name).graph;
  std::optional<inductor::Provenance> provenance;
  if (const trace::Artifact* p = unit.find(trace::ArtifactKind::kProvenanceMappings)) {
    if (auto parsed = inductor::parse_provenance(p->payload.text(), p->name)) {
      provenance = std::move(*parsed);
    }
  }
  // Eager kernels name AOT nodes, compiled ones post-grad nodes: both graphs are mapped.
  std::vector<const trace::Artifact*> graphs = unit.find_all(trace::ArtifactKind::kPostGradGraph);
  if (const trace::Artifact* aot = unit.aot_graph()) graphs.push_back(aot);
  const std::vector<std::string> user_inputs = placeholders(dynamo);
  for (const trace::Artifact* a : graphs) {
    const graph::Graph g = graph::parse_fx_readable(a->payload.text(), a->name).graph;
    const auto map = fusion::map_to_dynamo(g, dynamo, provenance ? &*provenance : nullptr);
    for (graph::NodeId id = 0; id < g.size(); ++id) {
      if (map[id].empty()) continue;
      auto& names = dynamo_of[g.node(id).name];
      for (const auto d : map[id]) names.push_back(dynamo.node(d).name);
    }
    // Inputs carry no source location; AOT keeps the Dynamo graph's inputs in order, so they
    // pair by position when the counts agree (not where AOT added inputs such as sizes).
    const std::vector<std::string> inputs = placeholders(g);
    if (inputs.size() != user_inputs.size()) continue;
    for (std::size_t i = 0; i < inputs.size(); ++i) dynamo_of[inputs[i]].push_back(user_inputs[i]);
  }
  for (auto& [name, names] : dynamo_of) {
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
}

std::vector<std::string> KernelIndex::dynamo_nodes(const std::vector<std::string>& nodes) const {
  std::set<std::string> out;
  for (const auto& n : nodes) {
    if (const auto it = dynamo_of.find(n); it != dynamo_of.end()) {
      out.insert(it->second.begin(), it->second.end());
    }
  }
  return {out.begin(), out.end()};
}

ModeMeasurement attribute_mode(const std::string& mode, const std::string& prefix,
                               const CuptiRecords& records, const KernelIndex& index) {
  ModeMeasurement m;
  m.mode = mode;
  std::vector<const MarkerRange*> repeats;
  std::vector<const MarkerRange*> ops;
  std::vector<const MarkerRange*> copies;
  for (const auto& r : records.ranges) {
    if (starts_with(r.name, prefix)) repeats.push_back(&r);
    if (mode == "eager" && starts_with(r.name, kOpPrefix)) ops.push_back(&r);
    if (mode != "eager" && starts_with(r.name, kCopyPrefix)) copies.push_back(&r);
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
        a = walk.next(*k);
      } else {
        // Under CUDA graphs, kernels outside the graph copy inputs into its static buffers or
        // refill the RNG state; they stay out of the plan walk, where they would misplace the
        // extern kernels.
        a = outside_graph(*k, copies_before(copies, rep, records.launched_at(*k)), index);
      }
      const std::string group = a ? a->group : std::string();
      auto [it, fresh] = slot.emplace(std::make_pair(k->name, group), m.kernels.size());
      if (fresh) {
        MeasuredKernel mk;
        mk.name = k->name;
        mk.group = group;
        if (a) mk.nodes = a->nodes;
        mk.dynamo_nodes = index.dynamo_nodes(mk.nodes);
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
      if (!m.kernels[it->second].dynamo_nodes.empty()) m.dynamo_us += k->us();
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
  m.dynamo_us /= n;
  m.launches /= n;
  m.graph_launches /= n;
  return m;
}

}  // namespace fxscope::gpu
