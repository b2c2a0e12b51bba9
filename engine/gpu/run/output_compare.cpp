#include "fxscope/gpu/output_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {
namespace {

std::vector<std::int64_t> eval_all(const std::vector<graph::Dim>& dims,
                                   const ops::SymbolHints& hints) {
  std::vector<std::int64_t> out;
  out.reserve(dims.size());
  for (const auto& d : dims) out.push_back(ops::eval_dim(d, hints));
  return out;
}

}  // namespace

double element_difference(double expected, double actual) {
  if (std::isfinite(expected) && std::isfinite(actual)) return std::fabs(expected - actual);
  // Matching NaNs or infinities on both sides are a match; one side alone is a failure.
  const bool same = (std::isnan(expected) && std::isnan(actual)) || expected == actual;
  return same ? 0.0 : std::numeric_limits<double>::infinity();
}

namespace {

// Calls FN(expected element, actual element) for each element of EXPECTED and ACTUAL in logical
// order, whatever strides each side has, until FN returns false. Nullopt where their sizes or
// ranks differ; else the element count.
template <class Fn>
std::optional<std::int64_t> each_element_pair(const HostView& expected, const HostView& actual,
                                              const ops::SymbolHints& hints, Fn fn) {
  const auto sizes = eval_all(expected.meta->sizes, hints);
  if (sizes != eval_all(actual.meta->sizes, hints)) return std::nullopt;
  const auto es = eval_all(expected.meta->strides, hints);
  const auto as = eval_all(actual.meta->strides, hints);
  if (es.size() != sizes.size() || as.size() != sizes.size()) return std::nullopt;
  std::int64_t numel = 1;
  for (const auto s : sizes) numel *= s;
  std::vector<std::int64_t> index(sizes.size(), 0);
  for (std::int64_t i = 0; i < numel; ++i) {
    std::int64_t eo = 0;
    std::int64_t ao = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      eo += index[d] * es[d];
      ao += index[d] * as[d];
    }
    if (!fn(read_element(expected.meta->dtype, expected.data, eo),
            read_element(actual.meta->dtype, actual.data, ao))) {
      break;
    }
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return numel;
}

}  // namespace

double relative_error(const HostView& expected, const HostView& actual,
                      const ops::SymbolHints& hints, double magnitude) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const bool exact = !is_floating(expected.meta->dtype);
  std::int64_t differing = 0;
  double max_diff = 0.0;
  double max_ref = 0.0;
  const auto numel = each_element_pair(expected, actual, hints, [&](double e, double a) {
    const double diff = element_difference(e, a);
    max_diff = std::max(max_diff, diff);
    if (std::isfinite(e)) max_ref = std::max(max_ref, std::fabs(e));
    differing += diff != 0.0;
    return !std::isinf(diff);
  });
  if (!numel || std::isinf(max_diff)) return kInf;
  if (*numel == 0 || max_diff == 0.0) return 0.0;
  if (exact) return static_cast<double>(differing) / static_cast<double>(*numel);
  return max_diff / std::max({max_ref, magnitude, std::numeric_limits<double>::min()});
}

double rms_difference(const HostView& expected, const HostView& actual,
                      const ops::SymbolHints& hints) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double squares = 0.0;
  const auto numel = each_element_pair(expected, actual, hints, [&](double e, double a) {
    const double diff = element_difference(e, a);
    squares += diff * diff;
    return !std::isinf(diff);
  });
  if (!numel || std::isinf(squares)) return kInf;
  return *numel == 0 ? 0.0 : std::sqrt(squares / static_cast<double>(*numel));
}

void mark_not_run(std::vector<HostOutput>& outputs, const graph::Graph& graph,
                  const fusion::FusionPlan& plan, const std::vector<SkippedGroup>& skipped) {
  if (skipped.empty()) return;
  std::vector<const std::string*> why(graph.size(), nullptr);
  for (const SkippedGroup& k : skipped) {
    if (k.group >= plan.groups.size()) continue;
    for (const graph::NodeId n : plan.groups[k.group].nodes) {
      if (n < why.size() && !why[n]) why[n] = &k.why;
    }
  }
  // Node order is a topological order: each value inherits the first reason of its inputs.
  for (graph::NodeId n = 0; n < graph.size(); ++n) {
    if (why[n]) continue;
    for (const graph::NodeId in : graph.inputs(n)) {
      if (why[in]) {
        why[n] = why[in];
        break;
      }
    }
  }
  const std::vector<graph::NodeId> ids = output_nodes(graph);
  for (std::size_t i = 0; i < ids.size() && i < outputs.size(); ++i) {
    if (why[ids[i]] && outputs[i].not_run.empty()) outputs[i].not_run = *why[ids[i]];
  }
}

std::vector<std::string> computed_in_dtypes(const graph::Graph& graph) {
  std::vector<std::string> out(graph.size());
  for (graph::NodeId n = 0; n < graph.size(); ++n) {
    const auto& meta = graph.node(n).meta;
    std::string loosest;
    if (meta && !meta->is_sym_scalar() && is_floating(meta->dtype)) loosest = meta->dtype;
    for (const graph::NodeId in : graph.inputs(n)) {
      if (in >= n || out[in].empty()) continue;
      if (loosest.empty() || tolerance(out[in]) > tolerance(loosest)) loosest = out[in];
    }
    out[n] = std::move(loosest);
  }
  return out;
}

double value_tolerance(std::string_view dtype, std::string_view computed_in) {
  const double own = tolerance(dtype);
  if (computed_in.empty()) return own;
  if (!is_floating(dtype)) return kMaskFlipShare;
  return std::max(own, tolerance(computed_in));
}

double output_tolerance(const HostOutput& output) {
  return value_tolerance(output.meta.dtype, output.computed_in);
}

std::optional<std::vector<std::byte>> relaid_as(const HostOutput& out,
                                                const graph::TensorMeta& meta,
                                                const ops::SymbolHints& hints) {
  const std::size_t rank = meta.sizes.size();
  if (out.meta.sizes.size() != rank || out.meta.strides.size() != rank ||
      meta.strides.size() != rank || out.meta.dtype != meta.dtype) {
    return std::nullopt;
  }
  std::vector<std::int64_t> sizes(rank), from(rank), to(rank);
  bool same = true;
  for (std::size_t d = 0; d < rank; ++d) {
    sizes[d] = ops::eval_dim(meta.sizes[d], hints);
    if (ops::eval_dim(out.meta.sizes[d], hints) != sizes[d]) return std::nullopt;
    from[d] = ops::eval_dim(out.meta.strides[d], hints);
    to[d] = ops::eval_dim(meta.strides[d], hints);
    same = same && (sizes[d] == 1 || from[d] == to[d]);
  }
  if (same) return std::nullopt;
  const std::size_t width = element_bytes(meta.dtype);
  std::vector<std::byte> bytes(static_cast<std::size_t>(storage_elements(meta, hints)) * width);
  const std::int64_t numel = ops::numel(meta, hints);
  std::vector<std::int64_t> at(rank, 0);
  for (std::int64_t i = 0; i < numel; ++i) {
    std::int64_t src = 0;
    std::int64_t dst = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      src += at[d] * from[d];
      dst += at[d] * to[d];
    }
    const auto s0 = static_cast<std::size_t>(src) * width;
    const auto d0 = static_cast<std::size_t>(dst) * width;
    if (s0 + width > out.bytes.size() || d0 + width > bytes.size()) return std::nullopt;
    std::copy_n(out.bytes.begin() + static_cast<std::ptrdiff_t>(s0), width,
                bytes.begin() + static_cast<std::ptrdiff_t>(d0));
    for (std::size_t d = rank; d-- > 0;) {
      if (++at[d] < sizes[d]) break;
      at[d] = 0;
    }
  }
  return bytes;
}

}  // namespace fxscope::gpu
