#pragma once
// The decomposer core_aten_graph runs (core_aten_graph.h): the new graph it builds node by node,
// the helpers its decompositions share, and one member per composite op, defined by what it builds:
// core_aten_graph.cpp (the pass and its graph), core_aten_strides.cpp (views' strides),
// core_aten_norms.cpp (norms, softmax, dropout), core_aten_products.cpp (linear, matmul,
// convolution, attention), core_aten_shapes.cpp (reshapes, pooling, padding, casts, upsampling).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fxscope/fusion/core_aten_graph.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion::core_aten {

using graph::Argument;
using graph::Dim;
using graph::NodeId;
using graph::TensorMeta;
using Dims = std::vector<Dim>;

std::string factor(const Dim& d);

Dim mul(const Dim& a, const Dim& b);

Dim product(const Dims& sizes, std::size_t from, std::size_t to);

Dims dense(const Dims& sizes);

bool is_one(const Dim& d);

// Whether M's strides are the dense row-major ones (a dimension of size 1 may have any stride).
bool row_major(const TensorMeta& m);

std::optional<std::size_t> dim_index(std::int64_t dim, std::size_t rank);

// Positional argument I or keyword NAME; nullptr where the call leaves it to its default.
const Argument* arg_of(const graph::Node& n, std::size_t i, std::string_view name);

std::optional<std::int64_t> int_of(const Argument* a);

std::optional<double> number_of(const Argument* a);

std::optional<bool> bool_of(const Argument* a);

// The integers of a list argument, or one integer repeated COUNT times (conv2d's stride=1).
std::optional<std::vector<std::int64_t>> ints_of(const Argument* a, std::size_t count);

Argument int_list(const std::vector<std::int64_t>& values);

// A size as an FX argument: a number, a symbol's name, or an expression as written.
Argument size_argument(const Dim& d);

Argument size_list(const Dims& sizes);

// torch.float32 for f32: a dtype argument as FX prints it.
Argument dtype_symbol(const std::string& short_name);

// F.interpolate's overloads of the training IR (CompositeImplicit: the core ATen IR has only
// the sized ones, which Dynamo's graphs and Inductor keep).
bool upsample_vec(std::string_view target);

bool half_precision(const std::string& dtype);

class Decomposer {
 public:
  Decomposer(const graph::Graph& in, std::string where, const ops::SymbolHints& hints);
  CoreAtenGraph run();

 private:
  Argument remap(const Argument& a) const;
  // The new graph's node for argument A of the node being decomposed; nullopt unless a node.
  std::optional<NodeId> node_of(const Argument* a) const;
  const TensorMeta* meta(NodeId id) const;
  const TensorMeta* meta(const std::optional<NodeId>& id) const;
  // A value's annotation kept across adding nodes (which moves the graph's nodes).
  static std::optional<TensorMeta> copy_of(const TensorMeta* m);
  std::string fresh(const std::string& base) const;
  NodeId add(graph::Node node);
  // A node standing for part of composite op OF: named NAME (OF's own name for its result),
  // with OF's source line and module.
  NodeId emit(const graph::Node& of, std::string name, std::string_view op,
              std::vector<Argument> args, std::optional<TensorMeta> value,
              std::vector<graph::KeywordArgument> kwargs = {});
  TensorMeta value(const TensorMeta& like, Dims sizes, std::optional<Dims> strides = {}) const;
  NodeId getitem(const graph::Node& of, NodeId tuple, std::int64_t k, std::string name,
                 std::optional<TensorMeta> value);
  // X laid out row-major (a copy where it is not), then viewed as SIZES.
  NodeId reshape(const graph::Node& of, NodeId x, const Dims& sizes, std::string name);
  // The functional target of in-place op N ("torch.ops.aten.relu.default" for relu_): an op the
  // table knows without its trailing underscore, mutating a tensor the graph computed or took
  // (not a view, whose base the mutation would change too). nullopt for any other node.
  std::optional<std::string> functional_target(const graph::Node& n) const;
  std::optional<NodeId> decompose(const graph::Node& n, std::string& why);
  // linear(x, w, b): x @ w.T + b, as addmm (mm without a bias) over x's leading dims flattened.
  std::optional<NodeId> linear(const graph::Node& n, std::string& why);
  // X (rank >= 2) times the matrix W (K x N), plus BIAS: addmm or mm over X's leading dims.
  NodeId gemm(const graph::Node& n, NodeId x, NodeId w, std::optional<NodeId> bias);
  std::optional<NodeId> matmul(const graph::Node& n, std::string& why);
  // conv1d/2d/3d(x, w, b, stride, padding, dilation, groups) -> convolution(.., transposed=False).
  // conv_transpose*d(x, w, b, stride, padding, output_padding, groups, dilation): the same
  // convolution, transposed, its arguments in another order.
  std::optional<NodeId> convolution(const graph::Node& n, std::size_t spatial, std::string& why,
                                    bool transposed = false);
  Argument tensor_or_none(const Argument* a) const;
  // A pointwise ATen op over ARGS, valued like X's sizes in DTYPE.
  NodeId pointwise(const graph::Node& n, std::string name, std::string_view op,
                   std::vector<Argument> args, const TensorMeta& like, const Dims& sizes);
  // X in DTYPE: itself, or a convert_element_type (the decompositions compute a bf16/f16 norm in
  // f32, as torch/_decomp's batch and group norm do).
  NodeId in_dtype(const graph::Node& n, NodeId x, const std::string& dtype);
  // X converted to DTYPE (prims.convert_element_type), named NAME, X's sizes.
  NodeId convert(const graph::Node& n, NodeId x, const std::string& dtype, std::string name);
  // rsqrt(V + EPS): a norm's inverse standard deviation, valued like LIKE at SIZES.
  NodeId inverse_root(const graph::Node& n, NodeId v, double eps, const TensorMeta& like,
                      const Dims& sizes);
  // Y * W + B where W and B (absent or not) broadcast against Y's last dims (layer and RMS norm),
  // in COMPUTE, the last op named LAST.
  NodeId scale_shift(const graph::Node& n, NodeId y, std::optional<NodeId> w,
                     std::optional<NodeId> b, const std::string& compute, const std::string& last);
  // (X - MEAN) * RSTD, the last op named LAST.
  NodeId normalized(const graph::Node& n, NodeId x, NodeId mean, NodeId rstd,
                    const std::string& last);
  // P (one value per channel) in DTYPE, viewed as CHANNEL ([C, 1, ...]) against an input's dim 1.
  NodeId per_channel(const graph::Node& n, NodeId p, const std::string& dtype, const Dims& channel);
  // var_mean(X, DIMS, correction=0, keepdim=True): the variance and the mean, valued as STAT.
  std::pair<NodeId, NodeId> var_mean(const graph::Node& n, NodeId x,
                                     const std::vector<std::int64_t>& dims, const TensorMeta& stat);
  // Y * W + B, W and B (one value per channel) viewed as CHANNEL against Y's dim 1; the last op
  // is named LAST (Y itself where there are neither).
  NodeId affine(const graph::Node& n, NodeId y, std::optional<NodeId> w, std::optional<NodeId> b,
                const Dims& channel, const std::string& last);
  // The name of the last op computing N's value in COMPUTE: N's own, unless a convert back to
  // N's dtype follows.
  std::string last_name(const graph::Node& n, const std::string& compute) const;
  // Y as N's value: itself where already in N's dtype, else converted back, named N.
  NodeId finish(const graph::Node& n, NodeId y);
  // batch_norm: (x - mean) * rsqrt(var + eps) * w + b, with the running statistics in eval and
  // x's own (var_mean over every dim but the channel, unbiased=False) in training, computed in
  // f32 for bf16/f16 input, as Inductor's decomposition of _native_batch_norm_legit does.
  std::optional<NodeId> batch_norm(const graph::Node& n, std::string& why);
  // layer_norm: var_mean over the normalized (last) dims, (x - mean) * rsqrt(var + eps) * w + b,
  // in f32 for bf16/f16 input: the ops Inductor's decomposition of native_layer_norm gives, which
  // it fuses into one reduction kernel (fxscope's generator has no fused native_layer_norm).
  std::optional<NodeId> layer_norm(const graph::Node& n, std::string& why);
  // group_norm: x viewed as [N, G, rest], var_mean over rest, normalized, viewed back, then the
  // per-channel weight and bias (torch/_decomp's native_group_norm).
  std::optional<NodeId> group_norm(const graph::Node& n, std::string& why);
  // softmax(x, dim, dtype): x converted to DTYPE first where one is given, then _softmax.
  std::optional<NodeId> softmax(const graph::Node& n, std::string_view op, std::string& why);
  // dropout in eval (or p = 0) is its input; in training native_dropout's first output.
  std::optional<NodeId> dropout(const graph::Node& n, std::string& why);
  std::optional<NodeId> flatten(const graph::Node& n, std::string& why);
  // unflatten splits one dim: always a view, its new dims strided within the split one.
  std::optional<NodeId> unflatten(const graph::Node& n, std::string& why);
  // max_pool2d / max_pool3d -> max_pool*_with_indices's values, the same arguments.
  std::optional<NodeId> max_pool(const graph::Node& n, std::string& why);
  // contiguous is its input where that is row-major, else a copy that is.
  std::optional<NodeId> contiguous(const graph::Node& n, std::string& why);
  // type_as(x, other) and to(x, dtype, ...): a convert to the other dtype; its input where the
  // dtype does not change (and no copy is asked for).
  std::optional<NodeId> to_dtype(const graph::Node& n, std::string& why);
  // pad(x, pad, 'constant', value) -> constant_pad_nd; the other modes are kept.
  std::optional<NodeId> pad(const graph::Node& n, std::string& why);
  // rms_norm(x, shape, w, eps): x * rsqrt(mean(x^2 over the normalized dims) + eps) * w, in f32
  // for bf16/f16 input; eps defaults to the input dtype's machine epsilon (torch/_decomp).
  std::optional<NodeId> rms_norm(const graph::Node& n, std::string& why);
  // upsample_nearest2d.vec / upsample_bilinear2d.vec (F.interpolate in the training IR): the
  // gathers Inductor's decompositions give (_upsample_nearest, _upsample_linear): per spatial dim
  // a source index from iota(out) (floor(i * scale) for nearest; scale * (i + 0.5) - 0.5 clamped
  // at 0, or scale * i with align_corners, for bilinear), _unsafe_index of the input at them, and
  // for bilinear the four corners blended by the fractions, W first. SCALE is in / out, or
  // 1 / scale_factor where one is given.
  std::optional<NodeId> upsample(const graph::Node& n, bool bilinear, std::string& why);
  static TensorMeta index_meta(const std::string& device);
  // chunk(x, chunks, dim) -> split(x, ceil(size / chunks), dim); its getitems read the split.
  std::optional<NodeId> chunk(const graph::Node& n, std::string& why);
  // scaled_dot_product_attention as the kernel PyTorch's CUDA dispatch picks: flash attention
  // for bf16/f16 without a mask, memory-efficient attention otherwise; a 3-D call runs with a
  // head dimension of 1.
  // A boolean attention mask as the additive one the kernels take (sdpa's
  // convert_boolean_attn_mask): 0 where it keeps a position, -inf where it masks it, in DTYPE.
  NodeId additive_mask(const graph::Node& n, NodeId mask, const std::string& dtype);
  std::optional<NodeId> attention(const graph::Node& n, std::string& why);
  // The strides of a view of SIZES over an input of OLD_SIZES and OLD_STRIDES, as PyTorch's
  // computeStride finds them (each run of the input's dims contiguous in memory maps onto whole
  // dims of the view); nullopt where the view cannot be laid over the input (reshape copies).
  // Sizes are compared at the hints; the strides are built from the input's as expressions.
  std::optional<Dims> view_of(const Dims& old_sizes, const Dims& old_strides,
                              const Dims& sizes) const;
  // reshape: a view where the input's strides allow one, else a row-major copy viewed.
  std::optional<NodeId> reshape_op(const graph::Node& n, std::string& why);
  // Strides for node ID where its annotation printed none: a view's as PyTorch computes them
  // from its input's, any other value's dense.
  void fill_strides(NodeId id);
  std::optional<Dims> view_strides(const graph::Node& n) const;
  const graph::Graph& in_;
  std::string where_;
  const ops::SymbolHints& hints_;
  std::vector<NodeId> map_;
  std::vector<NodeId> root_;  // the tensor each node's value is, through in-place ops
  CoreAtenGraph out_;
};

}  // namespace fxscope::fusion::core_aten
