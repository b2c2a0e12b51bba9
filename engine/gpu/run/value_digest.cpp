#include "fxscope/gpu/value_digest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

std::vector<std::int64_t> sample_positions(std::int64_t numel) {
  std::vector<std::int64_t> out;
  if (numel <= 0) return out;
  const auto n = static_cast<std::int64_t>(kDigestSamples);
  if (numel <= n) {
    for (std::int64_t i = 0; i < numel; ++i) out.push_back(i);
    return out;
  }
  for (std::int64_t k = 0; k < n; ++k) out.push_back(k * (numel - 1) / (n - 1));
  return out;
}

ValueDigest digest_value(const graph::TensorMeta& meta, const std::byte* data,
                         const ops::SymbolHints& hints) {
  ValueDigest d;
  d.dtype = meta.dtype;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  for (const auto& s : meta.sizes) sizes.push_back(ops::eval_dim(s, hints));
  for (const auto& s : meta.strides) strides.push_back(ops::eval_dim(s, hints));
  if (strides.size() != sizes.size()) return d;
  d.numel = 1;
  for (const auto s : sizes) d.numel *= s;
  d.sizes = sizes;
  const std::vector<std::int64_t> positions = sample_positions(d.numel);
  d.samples.reserve(positions.size());
  std::size_t next = 0;
  std::vector<std::int64_t> index(sizes.size(), 0);
  std::int64_t offset = 0;
  for (std::int64_t i = 0; i < d.numel; ++i) {
    const double v = read_element(meta.dtype, data, offset);
    if (std::isfinite(v)) {
      d.max_abs = std::max(d.max_abs, std::fabs(v));
      d.sum += v;
      d.abs_sum += std::fabs(v);
    } else {
      ++d.nonfinite;
    }
    if (next < positions.size() && positions[next] == i) {
      d.samples.push_back(v);
      ++next;
    }
    // The next element in row-major order: the offset moves by the last dimension's stride, and
    // a dimension that wraps takes back what it added.
    for (std::size_t k = sizes.size(); k-- > 0;) {
      offset += strides[k];
      if (++index[k] < sizes[k]) break;
      offset -= strides[k] * sizes[k];
      index[k] = 0;
    }
  }
  return d;
}

double digest_tolerance(const ValueDigest& value) {
  return value_tolerance(value.dtype, value.computed_in);
}

double digest_error(const ValueDigest& reference, const ValueDigest& actual) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kTiny = std::numeric_limits<double>::min();
  if (reference.numel != actual.numel || reference.samples.size() != actual.samples.size()) {
    return kInf;
  }
  if ((reference.nonfinite == 0) != (actual.nonfinite == 0)) return kInf;
  double max_diff = 0;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < reference.samples.size(); ++i) {
    const double d = element_difference(reference.samples[i], actual.samples[i]);
    if (std::isinf(d)) return kInf;
    max_diff = std::max(max_diff, d);
    differing += d != 0.0;
  }
  if (!is_floating(reference.dtype)) {
    // Integers and masks: the share of elements that differ, sampled and through the sums.
    const double sampled =
        reference.samples.empty()
            ? 0
            : static_cast<double>(differing) / static_cast<double>(reference.samples.size());
    const double summed = std::fabs(reference.sum - actual.sum) /
                          static_cast<double>(std::max<std::int64_t>(reference.numel, 1));
    return std::max(sampled, summed);
  }
  const double per_element =
      reference.numel > 0 ? reference.terms_abs_sum / static_cast<double>(reference.numel) : 0;
  const double magnitude = std::max({reference.max_abs, per_element, kTiny});
  const double sampled = max_diff == 0 ? 0 : max_diff / magnitude;
  const double sum_diff = std::fabs(reference.sum - actual.sum);
  const double summed =
      sum_diff == 0 ? 0 : sum_diff / std::max({reference.abs_sum, reference.terms_abs_sum, kTiny});
  return std::max(sampled, summed);
}

std::string largest_difference(const ValueDigest& reference, const ValueDigest& actual) {
  if (reference.samples.size() != actual.samples.size()) return "";
  std::size_t worst = reference.samples.size();
  double worst_diff = 0;
  for (std::size_t i = 0; i < reference.samples.size(); ++i) {
    const double diff = element_difference(reference.samples[i], actual.samples[i]);
    if (diff > worst_diff) {
      worst_diff = diff;
      worst = i;
    }
  }
  if (worst == reference.samples.size()) return "";
  // The sample's logical index as coordinates of the value's sizes.
  std::int64_t linear = sample_positions(reference.numel)[worst];
  std::vector<std::int64_t> at(reference.sizes.size(), 0);
  for (std::size_t d = at.size(); d-- > 0;) {
    const std::int64_t size = std::max<std::int64_t>(reference.sizes[d], 1);
    at[d] = linear % size;
    linear /= size;
  }
  std::string where = "[";
  for (std::size_t d = 0; d < at.size(); ++d) where += (d ? ", " : "") + std::to_string(at[d]);
  char values[96];
  std::snprintf(values, sizeof values, "]: eager %.4g, here %.4g", reference.samples[worst],
                actual.samples[worst]);
  return where + values;
}

std::optional<Divergence> first_divergence(const std::vector<ValueDigest>& reference,
                                           const std::vector<ValueDigest>& actual) {
  std::map<std::string, const ValueDigest*> by_node;
  for (const ValueDigest& r : reference) by_node[r.node] = &r;
  std::vector<const ValueDigest*> order;
  for (const ValueDigest& a : actual) {
    if (by_node.count(a.node)) order.push_back(&a);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const ValueDigest* x, const ValueDigest* y) { return x->step < y->step; });
  std::size_t agreeing = 0;
  for (const ValueDigest* a : order) {
    const ValueDigest* r = by_node.at(a->node);
    const double tol = std::max(digest_tolerance(*r), digest_tolerance(*a));
    const double e = digest_error(*r, *a);
    if (!(e <= tol)) return Divergence{r, a, e, tol, agreeing};
    ++agreeing;
  }
  return std::nullopt;
}

std::size_t shared_values(const std::vector<ValueDigest>& reference,
                          const std::vector<ValueDigest>& actual) {
  std::map<std::string, int> seen;
  for (const ValueDigest& r : reference) seen[r.node] = 1;
  std::size_t n = 0;
  for (const ValueDigest& a : actual) n += seen.count(a.node);
  return n;
}

namespace {

std::string values(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " value" : " values");
}

std::string figure(double v) {
  if (std::isinf(v)) return "infinite";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

}  // namespace

std::string divergence_note(const std::optional<Divergence>& divergence, std::size_t shared) {
  if (!divergence) {
    return "each of the " + values(shared) +
           " both runs wrote agrees with eager's at its sampled elements and sums";
  }
  const ValueDigest& a = *divergence->actual;
  const ValueDigest& r = *divergence->reference;
  std::string why = figure(divergence->error) + " against " +
                    (a.computed_in.empty() ? a.dtype : a.computed_in) + "'s " +
                    figure(divergence->tolerance);
  if (r.numel != a.numel) {
    why = std::to_string(a.numel) + " elements where eager's has " + std::to_string(r.numel);
  } else if ((r.nonfinite == 0) != (a.nonfinite == 0)) {
    why = std::to_string(a.nonfinite) + " non-finite elements where eager's has " +
          std::to_string(r.nonfinite);
  }
  if (const std::string at = largest_difference(r, a); !at.empty()) why += ", most at " + at;
  return "the first value outside tolerance is " + a.node + ", written by group " +
         std::to_string(a.group) + " " + a.group_name + " (" + a.kernel + "): " + why +
         " (eager: group " + std::to_string(r.group) + " " + r.group_name + "); the " +
         values(divergence->agreeing) + " its groups wrote before agree";
}

namespace {

// Whether index_put NODE adds into self (its accumulate argument, positional or named).
bool accumulates(const graph::Node& node) {
  if (node.args.size() > 3 && node.args[3].kind() == graph::Argument::Kind::boolean) {
    return node.args[3].as_bool();
  }
  for (const auto& [name, value] : node.kwargs) {
    if (name == "accumulate" && value.kind() == graph::Argument::Kind::boolean) {
      return value.as_bool();
    }
  }
  return false;
}

}  // namespace

double terms_abs_sum(const graph::Graph& graph, graph::NodeId n, std::int64_t numel,
                     const std::function<const ValueDigest*(graph::NodeId)>& stored) {
  const graph::Node& node = graph.node(n);
  if (!node.is_op()) return 0;
  const std::string_view op = ops::op_base_name(node.target);
  if (node.args.empty() || !node.args[0].is_node()) return 0;
  const auto carries = [](const graph::Node& m) {
    return m.is_op() && !m.args.empty() && m.args[0].is_node() &&
           (ops::op_base_name(m.target) == "convert_element_type" ||
            ops::classify(m.target).lowering == ops::Lowering::view);
  };
  // The digest of argument A's value, through the casts and views between it and the value
  // that stores it; nullptr where A is no node or nothing stored is digested.
  const auto digest_of = [&](std::size_t a) -> const ValueDigest* {
    if (node.args.size() <= a || !node.args[a].is_node()) return nullptr;
    graph::NodeId in = node.args[a].as_node();
    while (stored(in) == nullptr && carries(graph.node(in))) in = graph.node(in).args[0].as_node();
    return stored(in);
  };
  if (carries(node)) {
    // A cast or a view of a sum holds the sum's elements: its terms are the sum's, through the
    // views between them that store nothing (BERT's bias gradient: a cast of a view of a sum).
    const ValueDigest* sum = digest_of(0);
    return sum != nullptr && sum->numel == numel ? sum->terms_abs_sum : 0;
  }
  if ((op == "index_put" || op == "index_put_") && accumulates(node)) {
    // A scatter that adds is a sum of its values into self (Swin-T's relative-position bias
    // gradient: each table entry adds every window's gradient at its offset, themselves sums
    // over the batch that cancel). Its terms: self's and the values' magnitudes, a values' own
    // terms where it is a sum.
    double total = 0;
    for (const std::size_t a : {std::size_t{0}, std::size_t{2}}) {
      if (const ValueDigest* d = digest_of(a)) total += std::max(d->abs_sum, d->terms_abs_sum);
    }
    return total;
  }
  if (op == "add" || op == "sub") {
    // An add of sums is one longer sum (a shared weight's gradient: ALBERT adds each layer's bias
    // gradient, sums over the batch that cancel to rounding noise). Its terms: each operand's
    // own terms where it is a sum, else its magnitude; where neither operand is a sum, the add
    // is judged by its result, as any value is.
    double total = 0;
    bool of_sums = false;
    for (const std::size_t a : {std::size_t{0}, std::size_t{1}}) {
      if (node.args.size() <= a || !node.args[a].is_node()) continue;
      const ValueDigest* d = digest_of(a);
      if (d == nullptr || d->numel != numel) return 0;
      of_sums = of_sums || d->terms_abs_sum > 0;
      total += std::max(d->abs_sum, d->terms_abs_sum);
    }
    return of_sums ? total : 0;
  }
  if (op != "sum" && op != "mean") return 0;
  // The terms: the input, through the casts and views between it and a stored value.
  const ValueDigest* input = digest_of(0);
  if (input == nullptr) return 0;
  const ValueDigest& terms = *input;
  if (terms.numel == 0 || numel == 0) return 0;
  // A mean divides each output's sum by the elements it averages.
  return op == "mean"
             ? terms.abs_sum * static_cast<double>(numel) / static_cast<double>(terms.numel)
             : terms.abs_sum;
}

}  // namespace fxscope::gpu
