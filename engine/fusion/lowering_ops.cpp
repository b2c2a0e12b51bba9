#include "fxscope/fusion/lowering_ops.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

bool plain_reduction(std::string_view target) {
  static const std::set<std::string_view> kPlain = {
      "sum", "mean",   "amax",   "amin", "max", "min",      "prod",      "any",
      "all", "argmax", "argmin", "var",  "std", "var_mean", "logsumexp", "prepare_softmax_online"};
  return kPlain.count(ops::op_base_name(target)) > 0;
}

std::size_t pool_window_positions(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  const bool avg = base == "avg_pool2d";
  if (!avg && base != "max_pool2d_with_indices" && base != "_low_memory_max_pool_with_offsets") {
    return 0;
  }
  if (node.args.size() < 2) return 0;
  std::size_t window = 1;
  std::size_t dims = 0;
  for (const graph::Argument& k : node.args[1].items()) {
    if (k.kind() != graph::Argument::Kind::integer || k.as_int() < 1) return 0;
    window *= static_cast<std::size_t>(k.as_int());
    ++dims;
  }
  if (dims == 1) window *= window;
  if (dims == 0 || (avg && window > 25)) return 0;
  return window;
}

std::optional<std::size_t> indirect_indices_position(std::string_view target) {
  const std::string_view base = ops::op_base_name(target);
  if (base == "index" || base == "_unsafe_index" || base == "embedding") return 1;
  if (base == "gather" || base == "index_select") return 2;
  return std::nullopt;
}

bool needs_fixed_layout(std::string_view target, bool layout_opt) {
  const std::string_view base = ops::op_base_name(target);
  return base == "mm" || base == "_int_mm" || base == "convolution_backward" ||
         (base == "convolution" && !layout_opt);
}

bool custom_op_fallback(std::string_view target) {
  if (ops::find_op(target)) return false;  // an op the registry knows has a lowering or a fallback
  const std::string_view key = ops::op_key(target);
  const std::size_t dot = key.find('.');
  if (dot == std::string_view::npos) return false;
  // ATen and prims are builtin (flexible_layout); Inductor lowers its own ops and higher-order ops.
  static const std::set<std::string_view> kLowered = {"aten", "prims", "prim", "inductor",
                                                      "higher_order"};
  return kLowered.count(key.substr(0, dot)) == 0;
}

bool fallback_requires_dense(std::string_view target, bool backward) {
  const std::string_view base = ops::op_base_name(target);
  static const std::set<std::string_view> kDense = {"_adaptive_avg_pool2d_backward",
                                                    "_cudnn_rnn",
                                                    "_cudnn_rnn_backward",
                                                    "_embedding_bag",
                                                    "_embedding_bag_forward_only",
                                                    "grid_sampler_2d_backward",
                                                    "_thnn_fused_lstm_cell",
                                                    "upsample_bicubic2d_backward",
                                                    "view_as_complex"};
  if (kDense.count(base) > 0) return true;
  if (!backward || ops::find_op(target)) return false;
  const std::string_view key = ops::op_key(target);
  if (!key.starts_with("aten.") && !key.starts_with("prims.")) return false;
  // Explicit fallbacks registered without a layout constraint (the backward ones).
  static const std::set<std::string_view> kFree = {
      "upsample_linear1d_backward",
      "upsample_trilinear3d_backward",
      "_adaptive_avg_pool3d_backward",
      "adaptive_max_pool2d_backward",
      "adaptive_max_pool3d_backward",
      "avg_pool3d_backward",
      "_cdist_backward",
      "_embedding_bag_dense_backward",
      "fractional_max_pool2d_backward",
      "fractional_max_pool3d_backward",
      "max_pool3d_with_indices_backward",
      "multilabel_margin_loss_backward",
      "multi_margin_loss_backward",
      "_pdist_backward",
      "reflection_pad1d_backward",
      "replication_pad1d_backward",
      "soft_margin_loss_backward",
      "softshrink_backward",
      "_segment_reduce_backward",
      "_embedding_bag_per_sample_weights_backward",
      "_scaled_dot_product_efficient_attention_backward",
      "_scaled_dot_product_flash_attention_backward",
      "_flash_attention_backward"};
  return kFree.count(base) == 0;
}

bool runs_subgraphs(std::string_view target) {
  const std::string_view key = ops::op_key(target);
  return key == "higher_order.cond" || key == "higher_order.while_loop";
}

bool user_triton_kernel(std::string_view target) {
  const std::string_view key = ops::op_key(target);
  return key == "higher_order.triton_kernel_wrapper_mutation" ||
         key == "higher_order.triton_kernel_wrapper_functional";
}

bool flex_attention_template(std::string_view target) {
  const std::string_view key = ops::op_key(target);
  return key == "higher_order.flex_attention" || key == "higher_order.flex_attention_backward";
}

bool lowered_higher_order(std::string_view target) {
  return runs_subgraphs(target) || user_triton_kernel(target) || flex_attention_template(target);
}

bool allocates_only(std::string_view target) {
  static const std::set<std::string_view> kEmpty = {"empty", "empty_like", "empty_strided",
                                                    "new_empty", "new_empty_strided"};
  return kEmpty.count(ops::op_base_name(target)) > 0;
}

bool host_scalar_op(const graph::Node& node) {
  if (!node.is_op()) return false;
  if (node.meta && node.meta->is_sym_scalar()) return true;
  const std::string_view op = ops::op_base_name(node.target);
  return !node.meta && (op == "_assert_scalar" || op == "sym_constrain_range_for_size" ||
                        op == "sym_constrain_range");
}

bool lowers_to_nothing(std::string_view target) {
  return ops::op_base_name(target) == "_assert_scalar";
}

bool modelled_by_name(std::string_view target) {
  static const std::set<std::string_view> kModelled = {"aten.index_put_",
                                                       "aten._assert_scalar",
                                                       "aten.sym_constrain_range",
                                                       "aten.sym_constrain_range_for_size",
                                                       "aten._thnn_fused_lstm_cell",
                                                       "aten._thnn_fused_lstm_cell_backward_impl",
                                                       "aten.histc",
                                                       "transformers.grouped_mm_fallback"};
  return kModelled.count(ops::op_key(target)) > 0;
}

bool export_composite_op(std::string_view target) {
  static const std::set<std::string_view> kComposite = {"aten.linear",
                                                        "aten.matmul",
                                                        "aten.conv1d",
                                                        "aten.conv2d",
                                                        "aten.conv3d",
                                                        "aten.conv_transpose1d",
                                                        "aten.conv_transpose2d",
                                                        "aten.conv_transpose3d",
                                                        "aten.batch_norm",
                                                        "aten.layer_norm",
                                                        "aten.group_norm",
                                                        "aten.rms_norm",
                                                        "aten.softmax",
                                                        "aten.log_softmax",
                                                        "aten.dropout",
                                                        "aten.flatten",
                                                        "aten.unflatten",
                                                        "aten.chunk",
                                                        "aten.max_pool2d",
                                                        "aten.max_pool3d",
                                                        "aten.contiguous",
                                                        "aten.type_as",
                                                        "aten.reshape",
                                                        "aten.to",
                                                        "aten.pad",
                                                        "aten.scaled_dot_product_attention"};
  return kComposite.count(ops::op_key(target)) > 0;
}

bool modelled_op(const graph::Node& node) {
  return ops::find_op(node.target) || foreach_pointwise(node.target) ||
         lowered_higher_order(node.target) || modelled_by_name(node.target) || host_scalar_op(node);
}

bool window_needs_realized_inputs(std::string_view target) {
  static const std::set<std::string_view> kWindows = {"avg_pool2d",
                                                      "avg_pool2d_backward",
                                                      "max_pool2d_with_indices",
                                                      "max_pool3d_with_indices",
                                                      "max_pool2d_with_indices_backward",
                                                      "upsample_nearest2d",
                                                      "_upsample_nearest_exact2d"};
  return kWindows.count(ops::op_base_name(target)) > 0;
}

bool trivial_sort(const graph::Graph& graph, graph::NodeId id) {
  const graph::Node& node = graph.node(id);
  if (ops::op_base_name(node.target) != "sort" || node.args.empty() || !node.args[0].is_node()) {
    return false;
  }
  const graph::Node& in = graph.node(node.args[0].as_node());
  if (!in.meta) return false;
  const auto rank = static_cast<std::int64_t>(in.meta->sizes.size());
  if (rank == 0) return true;
  // sort_stable falls back to ATen where the device has no Triton sort (the C++ backend).
  if (in.meta->device == "cpu") return false;
  std::int64_t dim = -1;
  if (node.args.size() > 1 && node.args[1].kind() == graph::Argument::Kind::integer) {
    dim = node.args[1].as_int();
  }
  for (const auto& [name, value] : node.kwargs) {
    if (name == "dim" && value.kind() == graph::Argument::Kind::integer) dim = value.as_int();
  }
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return false;
  const graph::Dim& size = in.meta->sizes[static_cast<std::size_t>(dim)];
  return !size.is_symbolic() && size.value <= 1;
}

bool pointless_view(const graph::Graph& graph, graph::NodeId id) {
  const graph::Node& node = graph.node(id);
  const std::string_view base = ops::op_base_name(node.target);
  static const std::set<std::string_view> kSkipping = {"expand", "view", "_unsafe_view", "reshape",
                                                       "squeeze"};
  if (!kSkipping.count(base) || node.args.empty() || !node.args[0].is_node() || !node.meta) {
    return false;
  }
  const graph::Node& input = graph.node(node.args[0].as_node());
  if (!input.meta || input.meta->is_sym_scalar() || input.meta->sizes != node.meta->sizes) {
    return false;
  }
  if (base != "expand") return true;
  // lowering.expand compares the sizes as written: a -1 among them makes an ExpandView.
  if (node.args.size() < 2) return false;
  const std::vector<graph::Argument>& sizes = node.args[1].items();
  if (sizes.size() != input.meta->sizes.size()) return false;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    const graph::Dim& dim = input.meta->sizes[d];
    const graph::Argument& s = sizes[d];
    if (s.kind() == graph::Argument::Kind::integer) {
      if (dim.is_symbolic() || s.as_int() != dim.value) return false;
    } else if (!s.is_node() || !graph.node(s.as_node()).meta ||
               graph.node(s.as_node()).meta->sym != dim.expr || !dim.is_symbolic()) {
      return false;
    }
  }
  return true;
}

namespace {

// "torch.ops.aten._foreach_add_.Scalar" -> {"_foreach_add_", "Scalar"}; no overload -> "default".
std::pair<std::string_view, std::string_view> name_and_overload(std::string_view target) {
  const std::string_view key = ops::op_key(target);
  const std::string_view name = ops::op_base_name(target);
  constexpr std::string_view kOps = "torch.ops.";
  std::string_view rest = target.starts_with(kOps) ? target.substr(kOps.size()) : target;
  if (rest.size() > key.size() + 1 && rest.starts_with(key)) {
    return {name, rest.substr(key.size() + 1)};
  }
  return {name, "default"};
}

}  // namespace

bool foreach_pointwise(std::string_view target) {
  // lowering.py registers these op packets with every overload (get_overloads)...
  static const std::set<std::string_view> kEveryOverload = {"_foreach_sqrt",       "_foreach_rsqrt",
                                                            "_foreach_reciprocal", "_foreach_sign",
                                                            "_foreach_clone",      "_foreach_copy"};
  // ... and these overloads alone, out of place and in place.
  static const std::set<std::pair<std::string_view, std::string_view>> kOverloads = {
      {"_foreach_add", "List"},
      {"_foreach_add", "Scalar"},
      {"_foreach_add", "Tensor"},
      {"_foreach_mul", "List"},
      {"_foreach_mul", "Tensor"},
      {"_foreach_mul", "Scalar"},
      {"_foreach_sub", "List"},
      {"_foreach_sub", "Scalar"},
      {"_foreach_neg", "default"},
      {"_foreach_abs", "default"},
      {"_foreach_pow", "Scalar"},
      {"_foreach_pow", "List"},
      {"_foreach_pow", "ScalarAndTensor"},
      {"_foreach_div", "List"},
      {"_foreach_div", "Tensor"},
      {"_foreach_div", "Scalar"},
      {"_foreach_maximum", "List"},
      {"_foreach_maximum", "Scalar"},
      {"_foreach_minimum", "List"},
      {"_foreach_minimum", "Scalar"},
      {"_foreach_clamp_min", "List"},
      {"_foreach_clamp_min", "Scalar"},
      {"_foreach_clamp_max", "List"},
      {"_foreach_clamp_max", "Scalar"},
      {"_foreach_addcmul", "Scalar"},
      {"_foreach_addcdiv", "Scalar"},
      {"_foreach_add_", "List"},
      {"_foreach_add_", "Scalar"},
      {"_foreach_mul_", "List"},
      {"_foreach_mul_", "Scalar"},
      {"_foreach_div_", "List"},
      {"_foreach_div_", "Scalar"},
      {"_foreach_copy_", "default"},
      {"_foreach_addcmul_", "Scalar"},
      {"_foreach_addcdiv_", "Scalar"}};
  const auto [name, overload] = name_and_overload(target);
  if (!name.starts_with("_foreach_")) return false;
  return kEveryOverload.count(name) > 0 || kOverloads.count({name, overload}) > 0;
}

bool foreach_in_place(std::string_view target) {
  return foreach_pointwise(target) && ops::op_base_name(target).ends_with('_');
}

std::size_t foreach_length(const graph::Node& node) {
  for (const graph::Argument& a : node.args) {
    if (a.kind() == graph::Argument::Kind::list || a.kind() == graph::Argument::Kind::tuple) {
      return a.items().size();
    }
  }
  return 0;
}

std::vector<graph::NodeId> foreach_element_inputs(const graph::Graph& graph, graph::NodeId id,
                                                  std::size_t k) {
  std::vector<graph::NodeId> inputs;
  const auto take = [&](const graph::Argument& a) {
    if (a.kind() == graph::Argument::Kind::list || a.kind() == graph::Argument::Kind::tuple) {
      if (k < a.items().size() && a.items()[k].is_node()) inputs.push_back(a.items()[k].as_node());
    } else if (a.is_node()) {
      inputs.push_back(a.as_node());
    }
  };
  const graph::Node& node = graph.node(id);
  for (const graph::Argument& a : node.args) take(a);
  for (const auto& [name, value] : node.kwargs) take(value);
  return inputs;
}

bool reshape_needs_flat_index(const std::vector<std::int64_t>& old_sizes,
                              const std::vector<std::int64_t>& new_sizes) {
  // _dynamic_reshape_indexer, from the innermost dims out: equal sizes map through; a smaller
  // new size takes more new dims until it equals the old one, a smaller old size more old dims;
  // a size of one on either side is skipped. Anything else is its AssertionError or IndexError.
  std::vector<std::int64_t> olds = old_sizes;
  std::vector<std::int64_t> news = new_sizes;
  while (!news.empty()) {
    std::int64_t size_new = news.back();
    news.pop_back();
    if (olds.empty()) return size_new != 1;
    std::int64_t size_old = olds.back();
    olds.pop_back();
    if (size_new == 1) {
      olds.push_back(size_old);
    } else if (size_old == 1) {
      news.push_back(size_new);
    } else if (size_new < size_old) {
      while (size_new < size_old) {
        if (news.empty()) return true;
        size_new *= news.back();
        news.pop_back();
      }
      if (size_new != size_old) return true;
    } else if (size_new > size_old) {
      while (size_new > size_old) {
        if (olds.empty()) return true;
        size_old *= olds.back();
        olds.pop_back();
      }
      if (size_new != size_old) return true;
    }
  }
  return std::any_of(olds.begin(), olds.end(), [](std::int64_t s) { return s != 1; });
}

bool reshape_merges_symbolic_dims(const std::vector<std::int64_t>& old_sizes,
                                  const std::vector<bool>& old_symbolic,
                                  const std::vector<std::int64_t>& new_sizes,
                                  const std::vector<bool>& new_symbolic) {
  if (old_symbolic.size() != old_sizes.size() || new_symbolic.size() != new_sizes.size()) {
    return false;
  }
  // _dynamic_reshape_indexer's walk from the innermost dims out, comparing size hints: only a
  // new dim larger than the old one is reached through ModularIndexing of the old dims.
  std::size_t o = old_sizes.size();
  std::size_t k = new_sizes.size();
  while (k > 0 && o > 0) {
    std::int64_t size_new = new_sizes[--k];
    const bool static_new = !new_symbolic[k];
    std::int64_t size_old = old_sizes[--o];
    if (size_new == 1) {
      ++o;
    } else if (size_old == 1) {
      ++k;
    } else if (size_new < size_old) {
      while (size_new < size_old && k > 0) size_new *= new_sizes[--k];
    } else if (size_new > size_old) {
      bool symbolic = old_symbolic[o];
      while (size_new > size_old && o > 0) {
        size_old *= old_sizes[--o];
        symbolic = symbolic || old_symbolic[o];
      }
      if (static_new && symbolic) return true;
    }
  }
  return false;
}

}  // namespace fxscope::fusion
