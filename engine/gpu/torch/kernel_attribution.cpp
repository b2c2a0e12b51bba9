#include "fxscope/gpu/kernel_attribution.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "fxscope/fusion/captured_mode.h"
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

// How many of a repeat's launches PLAN explains in order: the longest common subsequence of the
// two, where a named kernel matches its own name and a library kernel (NAMES[i] null) matches any
// extern kernel of the plan. Two rows of the table suffice.
std::size_t matched_launches(const std::vector<const std::string*>& names, const KernelPlan& plan) {
  std::vector<std::size_t> prev(plan.kernels.size() + 1, 0);
  std::vector<std::size_t> row(plan.kernels.size() + 1, 0);
  for (const std::string* name : names) {
    for (std::size_t j = 0; j < plan.kernels.size(); ++j) {
      const PlanKernel& pk = plan.kernels[j];
      const bool match = name ? !pk.is_extern && pk.name == *name : pk.is_extern;
      row[j + 1] = match ? prev[j] + 1 : std::max(prev[j + 1], row[j]);
    }
    std::swap(prev, row);
  }
  return prev.back();
}

// The plan a repeat ran: among the plans that name one of its kernels (all of them when it has
// only library kernels), the one that explains most of its launches in order. On a tie the
// captured log's plan, whose node names are the user's graph's as they stand (a driver compile's
// are matched to them, see KernelIndex::add_unit), then the driver's compile of MODE, then the
// first.
std::size_t plan_of_repeat(const std::string& mode, const std::vector<const KernelRecord*>& repeat,
                           const KernelIndex& index) {
  std::vector<const std::string*> names;
  std::vector<bool> candidate(index.plans.size(), false);
  bool any_named = false;
  for (const KernelRecord* k : repeat) {
    const auto it = index.by_name.find(k->name);
    names.push_back(it == index.by_name.end() ? nullptr : &k->name);
    if (it == index.by_name.end()) continue;
    any_named = true;
    for (const PlanPlace& place : it->second) candidate[place.plan] = true;
  }
  std::size_t best = 0;
  std::tuple<std::size_t, bool, bool> best_score{0, false, false};
  bool found = false;
  for (std::size_t p = 0; p < index.plans.size(); ++p) {
    if (any_named && !candidate[p]) continue;
    const KernelPlan& plan = index.plans[p];
    const std::tuple<std::size_t, bool, bool> score{matched_launches(names, plan), !plan.driver,
                                                    plan.driver && plan.mode == mode};
    if (!found || score > best_score) {
      best = p;
      best_score = score;
      found = true;
    }
  }
  return best;
}

// Walks one repeat's compiled kernels in launch order against its plan: a Triton kernel is found
// by name (at or after the walk's place in the plan when it occurs there, since a kernel launched
// several times occurs once per launch); a library kernel takes the next extern kernel of the
// plan, or, when none is next or it is a split-K reduce, belongs to the extern call before it
// (cuBLAS may launch two kernels a GEMM).
class PlanWalk {
 public:
  PlanWalk(const KernelIndex& index, std::size_t plan) : index_(index), plan_(plan) {}

  std::optional<Assigned> next(const KernelRecord& k) {
    const auto it = index_.by_name.find(k.name);
    if (it != index_.by_name.end()) {
      const PlanPlace place = place_of(it->second);
      plan_ = place.plan;
      pos_ = place.kernel + 1;
      last_extern_ = kNoExtern;
      const auto& pk = index_.plans[plan_].kernels[place.kernel];
      return Assigned{pk.name, pk.nodes};
    }
    if (index_.plans.empty()) return std::nullopt;
    const auto& plan = index_.plans[plan_].kernels;
    // cuBLAS's split-K reduce finishes the GEMM before it rather than starting the next one.
    const bool finishes_previous =
        last_extern_ != kNoExtern && k.name.find("splitKreduce") != std::string::npos;
    if (!finishes_previous && pos_ < plan.size() && plan[pos_].is_extern) {
      last_extern_ = pos_++;
    }
    if (last_extern_ == kNoExtern) return std::nullopt;
    return Assigned{plan[last_extern_].name, plan[last_extern_].nodes};
  }

 private:
  // The place of a named kernel: the first in the walk's plan at or after its position, else the
  // first in its plan, else the first anywhere (a kernel of another graph).
  PlanPlace place_of(const std::vector<PlanPlace>& places) const {
    const PlanPlace* first_here = nullptr;
    for (const PlanPlace& place : places) {
      if (place.plan != plan_) continue;
      if (place.kernel >= pos_) return place;
      if (!first_here) first_here = &place;
    }
    return first_here ? *first_here : places.front();
  }

  const KernelIndex& index_;
  std::size_t plan_ = 0;
  std::size_t pos_ = 0;
  // A plain index (GCC's -Wmaybe-uninitialized misreads an optional member copied with the walk).
  static constexpr std::size_t kNoExtern = std::numeric_limits<std::size_t>::max();
  std::size_t last_extern_ = kNoExtern;
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

// The kernels of a repeat the plan walk sees: under CUDA graphs only those inside the graph (the
// others copy inputs or refill the RNG state, see outside_graph).
std::vector<const KernelRecord*> walked(const std::vector<const KernelRecord*>& repeat) {
  const bool any_graph = std::any_of(repeat.begin(), repeat.end(),
                                     [](const KernelRecord* k) { return k->graph != 0; });
  if (!any_graph) return repeat;
  std::vector<const KernelRecord*> out;
  for (const KernelRecord* k : repeat) {
    if (k->graph != 0) out.push_back(k);
  }
  return out;
}

// A structural signature of each node of G: its op, target and arguments, a node argument standing
// for that node's signature and a placeholder for INPUTS[i], the name of the captured input it
// receives. The same computation on the same inputs has the same signature in two graphs whatever
// their nodes are called.
std::vector<std::uint64_t> signatures(const graph::Graph& g,
                                      const std::vector<std::string>& inputs) {
  std::vector<std::uint64_t> sig(g.size(), 0);
  const auto append = [&sig](std::string& key, const graph::Argument& a, const auto& self) -> void {
    key += static_cast<char>('a' + static_cast<int>(a.kind()));
    if (a.is_node()) {
      key += std::to_string(a.as_node() < sig.size() ? sig[a.as_node()] : 0);
    } else if (a.items().empty()) {
      key += a.to_string();
    }
    for (const graph::Argument& item : a.items()) self(key, item, self);
    key += ';';
  };
  std::size_t input = 0;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    const graph::Node& n = g.node(id);
    std::string key(to_string(n.op));
    key += '|';
    if (n.op == graph::OpKind::placeholder) {
      // A placeholder's target is its own name: the input it receives stands for it instead.
      if (input < inputs.size()) {
        key += inputs[input];
      } else {
        key += '#';
        key += std::to_string(input);
      }
      ++input;
    } else {
      key += n.target + '|';
    }
    for (const graph::Argument& a : n.args) append(key, a, append);
    for (const auto& [name, a] : n.kwargs) {
      key += name + '=';
      append(key, a, append);
    }
    sig[id] = std::hash<std::string>{}(key);
  }
  return sig;
}

// The placeholders of GRAPH in order.
std::vector<std::string> placeholders(const graph::Graph& g) {
  std::vector<std::string> out;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    if (g.node(id).op == graph::OpKind::placeholder) out.push_back(g.node(id).name);
  }
  return out;
}

// The captured input each placeholder of POST_GRAD (the post-grad graph GRAPH of UNIT) receives.
// A captured graph's inputs are its own placeholders (arg3_1). The driver runs the capture's
// runnable, whose forward takes those inputs by name, and Dynamo orders a graph's inputs by first
// use: the driver's post-grad placeholders pair by position with its Dynamo graph's (AOT keeps
// them in order), which name the runnable's arguments (L_arg3_1_). Empty when they do not pair.
std::vector<std::string> captured_inputs(const trace::CompileUnit& unit,
                                         const trace::Artifact& graph,
                                         const graph::Graph& post_grad, bool driver) {
  std::vector<std::string> own = placeholders(post_grad);
  if (!driver) return own;
  const trace::Artifact* dynamo = nullptr;
  for (const trace::Artifact* d : unit.find_all(trace::ArtifactKind::kDynamoGraph)) {
    if (d->line < graph.line) dynamo = d;
  }
  if (!dynamo) return {};
  std::vector<std::string> names =
      placeholders(graph::parse_fx_readable(dynamo->payload.text(), dynamo->name).graph);
  if (names.size() != own.size()) return {};
  for (std::string& name : names) {
    if (name.size() > 3 && name.starts_with("L_") && name.ends_with("_")) {
      name = name.substr(2, name.size() - 3);
    }
  }
  return names;
}

// The innermost op range (eager) of repeat REP that holds time T: the latest to start of those
// that have not ended. OPS is sorted by start; a search, since LLaMA's eager repeats hold 50,000
// op ranges and as many kernels.
const MarkerRange* op_range_at(const std::vector<const MarkerRange*>& ops, const MarkerRange& rep,
                               std::uint64_t t) {
  auto it = std::upper_bound(ops.begin(), ops.end(), t,
                             [](std::uint64_t v, const MarkerRange* r) { return v < r->start; });
  while (it != ops.begin()) {
    --it;
    if ((*it)->start < rep.start) break;
    if (t <= (*it)->end) return *it;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> KernelIndex::node_names(const graph::Graph& g, bool driver,
                                                 const std::vector<std::string>& inputs) {
  const std::vector<std::uint64_t> sig = signatures(g, inputs);
  std::vector<std::string> names(g.size());
  std::unordered_map<std::uint64_t, std::size_t> taken;
  for (graph::NodeId id = 0; id < g.size(); ++id) {
    names[id] = g.node(id).name;
    if (!driver) {
      captured_by_signature[sig[id]].push_back(names[id]);
      continue;
    }
    // The k-th node of a signature in the driver's graph is the k-th in the captured graphs.
    const auto it = captured_by_signature.find(sig[id]);
    const std::size_t k = taken[sig[id]]++;
    if (it != captured_by_signature.end() && k < it->second.size()) names[id] = it->second[k];
  }
  return names;
}

void KernelIndex::add_unit(const trace::CompileUnit& unit, bool driver) {
  const auto graphs = unit.find_all(trace::ArtifactKind::kPostGradGraph);
  const auto fused = fusion::fuse_unit(unit, fusion::Mode::default_mode);
  for (std::size_t gi = 0; gi < fused.size(); ++gi) {
    const auto& g = fused[gi];
    const std::vector<std::string> names =
        node_names(g.post_grad, driver,
                   gi < graphs.size() ? captured_inputs(unit, *graphs[gi], g.post_grad, driver)
                                      : placeholders(g.post_grad));
    std::vector<std::string> seeds;
    for (graph::NodeId id = 0; id < g.post_grad.size(); ++id) {
      const graph::Node& node = g.post_grad.node(id);
      if (node.target.find("inductor_seeds") != std::string::npos) seeds.push_back(names[id]);
    }
    for (const auto& n : seeds) {
      if (std::find(rng_nodes.begin(), rng_nodes.end(), n) == rng_nodes.end())
        rng_nodes.push_back(n);
    }
    KernelPlan plan;
    plan.driver = driver;
    // fuse_unit plans the unit's post-grad graphs in log order, one entry each.
    if (gi < graphs.size()) {
      if (const auto mode = fusion::captured_mode(unit, *graphs[gi])) {
        plan.mode = std::string(fusion::to_string(*mode));
      }
    }
    for (const auto& group : g.inductor.groups) {
      PlanKernel pk;
      pk.name = group.name;
      pk.is_extern = group.kind == fusion::GroupKind::extern_kernel;
      for (const auto id : group.nodes) pk.nodes.push_back(names[id]);
      // Inductor lowers the seeds op to a randint call the output code names by its ATen op.
      if (pk.nodes.empty() && pk.name.find("randint") != std::string::npos) pk.nodes = seeds;
      by_name[pk.name].push_back({plans.size(), plan.kernels.size()});
      plan.kernels.push_back(std::move(pk));
    }
    if (!plan.kernels.empty()) plans.push_back(std::move(plan));
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

report::RunLaunch run_launch(const KernelRecord& kernel) {
  return {kernel.name,  kernel.start,  kernel.end,  kernel.grid,
          kernel.block, kernel.stream, kernel.graph};
}

report::RunMode attribute_mode(const std::string& mode, const std::string& prefix,
                               const CuptiRecords& records, const KernelIndex& index) {
  report::RunMode m;
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
  // Keyed by name, group and nodes, in order of first appearance: one cuBLAS kernel runs every
  // layer's GEMM, and each layer's time belongs to that layer's nodes.
  std::map<std::tuple<std::string, std::string, std::vector<std::string>>, std::size_t> slot;
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
    PlanWalk walk(index, mode == "eager" ? 0 : plan_of_repeat(mode, walked(in_repeat), index));
    for (const KernelRecord* k : in_repeat) {
      std::optional<Assigned> a;
      if (mode == "eager") {
        if (const MarkerRange* op = op_range_at(ops, rep, records.launched_at(*k))) {
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
      auto [it, fresh] =
          slot.emplace(std::make_tuple(k->name, group, a ? a->nodes : std::vector<std::string>()),
                       m.kernels.size());
      if (fresh) {
        report::RunKernel mk;
        mk.name = k->name;
        mk.group = group;
        if (a) mk.nodes = a->nodes;
        mk.dynamo_nodes = index.dynamo_nodes(mk.nodes);
        mk.grid = k->grid;
        mk.block = k->block;
        m.kernels.push_back(std::move(mk));
      }
      report::RunKernel& mk = m.kernels[it->second];
      mk.us += k->us();
      mk.calls += 1;
      mk.cuda_graph = mk.cuda_graph || k->graph != 0;
      m.kernel_us += k->us();
      if (a && !a->nodes.empty()) m.attributed_us += k->us();
      if (!m.kernels[it->second].dynamo_nodes.empty()) m.dynamo_us += k->us();
      m.launches += 1;
      if (k->graph != 0) m.cuda_graph_launches += 1;
      if (ri == 0) m.timeline.push_back(run_launch(*k));
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
  m.cuda_graph_launches /= n;
  return m;
}

}  // namespace fxscope::gpu
