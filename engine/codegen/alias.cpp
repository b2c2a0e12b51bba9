// alias_of(): the element offset a chain of views adds to its base buffer, from each view's
// arguments and its input's annotated strides; a copy_ into such a view writes the view's memory.

#include "arg_helpers.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/ops/op_registry.h"
#include "value_emitter.h"

namespace fxscope::codegen {
namespace {

// Whether OUT's sizes can be laid over IN's storage with strides alone (PyTorch's computeStride):
// every group of IN's dims that is contiguous in memory must map onto whole dims of OUT.
bool restrides(const Shape& in, const std::optional<Shape>& out) {
  if (!out) return false;
  const auto& old_sizes = in.sizes;
  const auto& old_strides = in.strides;
  const auto& new_sizes = out->sizes;
  if (old_sizes.empty()) return true;
  std::int64_t view_d = static_cast<std::int64_t>(new_sizes.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (std::int64_t d = static_cast<std::int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    const auto ud = static_cast<std::size_t>(d);
    tensor_numel *= old_sizes[ud];
    if (d == 0 ||
        (old_sizes[ud - 1] != 1 && old_strides[ud - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_sizes[static_cast<std::size_t>(view_d)] == 1)) {
        view_numel *= new_sizes[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[ud - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

std::optional<Alias> alias_of(const graph::Graph& graph, graph::NodeId node,
                              const ops::SymbolHints& hints) {
  if (node < graph.size() && ops::op_base_name(graph.node(node).target) == "copy_") {
    // copy_(dst, src) returns dst. Into a view of a buffer the graph computes (the reinplaced
    // as_strided_scatter: clone -> as_strided -> copy_), its kernel stores src into that
    // buffer's memory (Inductor's MutationLayoutSHOULDREMOVE); a graph input keeps its data.
    const graph::Node& n = graph.node(node);
    if (n.args.empty() || !n.args[0].is_node()) return std::nullopt;
    const auto dst = alias_of(graph, n.args[0].as_node(), hints);
    if (!dst || !graph.node(dst->base).is_op()) return std::nullopt;
    return dst;
  }
  std::int64_t offset = 0;
  graph::NodeId at = node;
  bool moved = false;
  for (int guard = 0; guard < 1024 && at < graph.size(); ++guard) {
    const graph::Node& n = graph.node(at);
    const ops::Lowering l = ops::classify(n.target).lowering;
    if (!n.is_op() || (l != ops::Lowering::view && l != ops::Lowering::getitem)) break;
    if (n.args.empty() || !n.args[0].is_node()) return std::nullopt;
    const graph::NodeId input = n.args[0].as_node();
    const std::string base(ops::op_base_name(n.target));
    const auto in = shape_of(graph.node(input), hints);
    if (base == "getitem") {
      // getitem of split / unbind: a view at the start of the k-th piece; of anything else
      // (var_mean, pooling), the getitem's own buffer.
      const graph::Node& p = graph.node(input);
      const std::string pb(ops::op_base_name(p.target));
      const auto ps = p.args.empty() || !p.args[0].is_node()
                          ? std::nullopt
                          : shape_of(graph.node(p.args[0].as_node()), hints);
      const std::int64_t k = int_at(n, 1, 0);
      if (!ps || (pb != "split" && pb != "split_with_sizes" && pb != "unbind")) break;
      const std::size_t rank = ps->sizes.size();
      const auto dim =
          static_cast<std::size_t>(wrap_dim(int_at(p, pb == "unbind" ? 1 : 2, 0), rank));
      if (dim >= rank) return std::nullopt;
      std::int64_t start = 0;
      if (pb == "split") start = k * int_at(p, 1, 1);
      if (pb == "unbind") start = k;
      if (pb == "split_with_sizes") {
        const std::vector<std::int64_t> sizes = ints_at(p, 1);
        for (std::int64_t j = 0; j < k && static_cast<std::size_t>(j) < sizes.size(); ++j) {
          start += sizes[static_cast<std::size_t>(j)];
        }
      }
      offset += start * ps->strides[dim];
      at = p.args[0].as_node();
      moved = true;
      continue;
    }
    if (!in) return std::nullopt;
    if (base == "slice") {
      const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), in->sizes.size()));
      if (dim >= in->sizes.size()) return std::nullopt;
      std::int64_t start = int_at(n, 2, 0);
      if (start < 0) start += in->sizes[dim];
      start = std::max<std::int64_t>(0, std::min(start, in->sizes[dim]));
      offset += start * in->strides[dim];
    } else if (base == "select") {
      const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), in->sizes.size()));
      if (dim >= in->sizes.size()) return std::nullopt;
      std::int64_t index = int_at(n, 2, 0);
      if (index < 0) index += in->sizes[dim];
      offset += index * in->strides[dim];
    } else if (base == "as_strided") {
      // as_strided's storage offset is absolute in the base's storage.
      offset = int_at(n, 3, 0);
    } else if ((base == "view" || base == "reshape" || base == "_unsafe_view") &&
               !in->contiguous() && !restrides(*in, shape_of(n, hints))) {
      // A reshape that no strides over its input can express copies, as in PyTorch; a view of
      // a strided tensor (the heads of a split QKV projection) stays a view.
      return std::nullopt;
    }
    at = input;
    moved = true;
  }
  if (!moved) return std::nullopt;
  return Alias{at, offset};
}

}  // namespace fxscope::codegen
