// Layout copies: the planner's groups that write a buffer of no graph node. The copy lands in a
// scratch buffer (KernelParam::scratch_elements) named after the node it copies.

#include <algorithm>
#include <optional>

#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

namespace {

std::string stored_as(const std::string& dtype, const std::string& v) {
  if (dtype == "f16") return "fx_f2h(" + v + ")";
  if (dtype == "bf16") return "fx_f2b(" + v + ")";
  return "(" + storage_type(dtype) + ")(" + v + ")";
}

// The channels-last copy of a tensor whose images have few positions (S = H * W <= 32, such as
// a 3x3 convolution's weights): a tile is TC whole channels, all S positions of each, so the
// reads are one contiguous run of TC * S elements of the source and the writes S runs of TC
// channels. (A tile of TC channels x a power-of-two number of positions would leave 7 of every
// 16 lanes idle for S = 9: ResNet-50's 3x3 weight copies ran at 18% of copy bandwidth so.) The
// tile's row stride is S made odd, so the transposed reads of the second phase hit distinct banks.
// TC is a power of two that divides C where one does, so that no tile is part empty. Where the
// source is a buffer of its own, the run is read in 16-byte words: on the H200 scalar loads kept
// too few bytes in flight between the tile's two barriers (62-68% of a same-size copy).
Result<GeneratedKernel> small_image_copy(const KernelContext& ctx, ValueEmitter& em,
                                         graph::NodeId source, const Shape& shape,
                                         const std::string& dst) {
  const auto& z = shape.sizes;
  const std::string& dtype = ctx.graph.node(source).meta->dtype;
  const std::int64_t c_count = z[1];
  const std::int64_t s_count = z[2] * z[3];
  // Up to 4.5 elements a thread of 256 (TC * S <= 1152), as long as that leaves at least 4 tiles
  // an SM; at least 64 channels (32 where C is smaller). Measured on the H200 (3x3 weights,
  // bench_memory_kernels): K = C = 512 took 7.4 us in tiles of 128 channels, 7.7 in tiles of 64;
  // C = 256 took 3.3 us in tiles of 128 (512 tiles) and 3.0 in tiles of 64; C = 128 took 2.3 and
  // 1.9 us.
  std::int64_t tc = 32;
  const auto tiles_of = [&](std::int64_t t) { return z[0] * ((c_count + t - 1) / t); };
  while (tc * 2 * s_count <= 1152 && tc * 2 <= c_count &&
         (tc < 64 || tiles_of(tc * 2) >= 4 * kSMs)) {
    tc *= 2;
  }
  const std::int64_t row = s_count | 1;
  const std::int64_t c_tiles = (c_count + tc - 1) / tc;
  const std::int64_t tiles = z[0] * c_tiles;
  const std::int64_t width = 16 / ops::dtype_bytes(dtype);
  const bool whole_tiles = c_count % tc == 0;
  std::optional<std::string> words;
  if (whole_tiles && tc % width == 0 && (dtype == "f32" || dtype == "f16" || dtype == "bf16")) {
    words = em.contiguous_buffer(source);
  }
  const std::string ix = index_type(ctx, shape.numel());
  const std::string TC = std::to_string(tc);
  const std::string C = std::to_string(c_count);
  const std::string S = std::to_string(s_count);
  const std::string ROW = std::to_string(row);
  const std::string items = std::to_string(tc * s_count);
  em.line("__shared__ " + compute_type(dtype) + " tile[" + std::to_string(tc * row) + "];");
  em.open("for (" + ix + " t = blockIdx.x; t < " + std::to_string(tiles) + "; t += gridDim.x) {");
  em.line("const " + ix + " n = t / " + std::to_string(c_tiles) + ";");
  em.line("const " + ix + " c0 = t % " + std::to_string(c_tiles) + " * " + TC + ";");
  em.line("__syncthreads();  // the previous tile's writes are done with it");
  const std::string W = std::to_string(width);
  const std::string vec = vector_type(dtype, width);
  const std::int64_t tile_words = tc * s_count / width;
  if (words) {
    em.line("const " + vec + "* run = reinterpret_cast<const " + vec + "*>(" + *words + " + (n * " +
            C + " + c0) * " + S + ");");
    em.open("for (int q = threadIdx.x; q < " + std::to_string(tile_words) + "; q += blockDim.x) {");
    em.line("const " + vec + " v = run[q];");
    em.line("#pragma unroll");
    em.open("for (int j = 0; j < " + W + "; ++j) {");
    em.line("const int k = q * " + W + " + j;");
    const std::string lane = dtype == "f16"    ? "fx_h2f(v.v[j])"
                             : dtype == "bf16" ? "fx_b2f(v.v[j])"
                                               : "v.v[j]";
    em.line("tile[(k / " + S + ") * " + ROW + " + k % " + S + "] = " + lane + ";");
    em.close();
    em.close();
  } else {
    em.line("#pragma unroll 4");
    em.open("for (int k = threadIdx.x; k < " + items + "; k += blockDim.x) {");
    em.line("const " + ix + " c = c0 + k / " + S + ";");
    em.line("const " + ix + " s = k % " + S + ";");
    em.open("if (c < " + C + ") {");
    Index idx;
    idx.dims = {"n", "c", "s / " + std::to_string(z[3]), "s % " + std::to_string(z[3])};
    auto v = em.value(source, idx);
    if (!v) return v.error();
    em.line("tile[(k / " + S + ") * " + ROW + " + s] = " + *v + ";");
    em.close();
    em.close();
  }
  em.line("__syncthreads();");
  int block = 256;
  if (words) {
    // Written in 16-byte words too: W channels of one position a word, a thread a word. The
    // block is the tile's words rounded up to whole warps, so that both phases take one pass.
    // (A channel a thread, 4-byte stores, left ResNet's 3x3 weight copies at 69-77% of a
    // same-size copy on the H200.)
    block = static_cast<int>(std::min<std::int64_t>((tile_words + 31) / 32 * 32, 512));
    const std::string per_row = std::to_string(tc / width);
    em.open("for (int q = threadIdx.x; q < " + std::to_string(tile_words) + "; q += blockDim.x) {");
    em.line("const " + ix + " s = q / " + per_row + ";");
    em.line("const int c = q % " + per_row + " * " + W +
            ";  // the word's first channel in the tile");
    em.line(vec + " o;");
    em.line("#pragma unroll");
    em.open("for (int j = 0; j < " + W + "; ++j) {");
    em.line("o.v[j] = " + stored_as(dtype, "tile[(c + j) * " + ROW + " + s]") + ";");
    em.close();
    em.line("*reinterpret_cast<" + vec + "*>(" + dst + " + (n * " + S + " + s) * " + C +
            " + c0 + c) = o;");
    em.close();
  } else {
    em.line("#pragma unroll 4");
    em.open("for (int k = threadIdx.x; k < " + items + "; k += blockDim.x) {");
    em.line("const " + ix + " s = k / " + TC + ";");
    em.line("const " + ix + " c = c0 + k % " + TC + ";");
    em.open("if (c < " + C + ") {");
    em.line(dst + "[(n * " + S + " + s) * " + C +
            " + c] = " + stored_as(dtype, "tile[(k % " + TC + ") * " + ROW + " + s]") + ";");
    em.close();
    em.close();
  }
  em.close();
  return finish_kernel(ctx, em, {block, 1, 1}, std::clamp<std::int64_t>(tiles, 1, kSMs * 16),
                       "channels-last copy " + std::to_string(shape.numel()) + " x " + dtype +
                           ", tiles of " + TC + " channels x all " + S + " positions" +
                           (words ? ", 16-byte reads and writes" : ""),
                       {{source, dtype, true, shape.numel()}});
}

// The channels-last copy of an image of few channels (C <= 4: an RGB input, a stem's weights).
// A thread moves W positions (W = 16 / element size): one 16-byte word from each of the C planes,
// then the C words that hold those positions side by side, so both reads and writes are whole
// coalesced words. Where the source is not a buffer of its own or W does not divide the image, a
// thread moves one position, C scalar reads and writes. (A tile of 32 channels would leave 29 of
// 32 lanes idle for C = 3: ResNet-50's input copy ran at 42% of a same-size copy so. A position a
// thread ran at 68% in max-autotune, 16-byte words at 70-71%; in default 85-90% either way.) The
// block is the candidate's; by default the largest of 256, 128, 64 that still gives every SM a
// block.
Result<GeneratedKernel> few_channel_copy(const KernelContext& ctx, ValueEmitter& em,
                                         graph::NodeId source, const Shape& shape,
                                         const std::string& dst) {
  const auto& z = shape.sizes;
  const std::string& dtype = ctx.graph.node(source).meta->dtype;
  const std::int64_t c_count = z[1];
  const std::int64_t positions = z[0] * z[2] * z[3];
  const std::int64_t s_count = z[2] * z[3];
  const std::int64_t width = 16 / ops::dtype_bytes(dtype);
  std::optional<std::string> words;
  if (s_count % width == 0 && (dtype == "f32" || dtype == "f16" || dtype == "bf16")) {
    words = em.contiguous_buffer(source);
  }
  const std::int64_t per_thread = words ? width : 1;
  const std::int64_t threads = positions / per_thread;
  int block = ctx.config.block;
  if (ctx.default_config) {
    block = 256;
    while (block > 64 && (threads + block - 1) / block < kSMs) block /= 2;
  }
  const std::string ix = index_type(ctx, shape.numel());
  const std::string S = std::to_string(s_count);
  const std::string C = std::to_string(c_count);
  em.open("for (" + ix + " q = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; q < " +
          std::to_string(threads) + "; q += " + ix + "(gridDim.x) * blockDim.x) {");
  if (words) {
    const std::string W = std::to_string(width);
    const std::string vec = vector_type(dtype, width);
    em.line("const " + ix + " p = q * " + W + ";  // the first of the thread's positions");
    em.line("const " + ix + " n = p / " + S + ";");
    em.line("const " + ix + " s = p % " + S + ";");
    for (std::int64_t c = 0; c < c_count; ++c) {
      const std::string k = std::to_string(c);
      em.line("const " + vec + " in" + k + " = *reinterpret_cast<const " + vec + "*>(" + *words +
              " + (n * " + C + " + " + k + ") * " + S + " + s);");
    }
    // Output word j, lane e holds element j * W + e of the run: position (j * W + e) / C,
    // channel (j * W + e) % C.
    for (std::int64_t j = 0; j < c_count; ++j) {
      const std::string J = std::to_string(j);
      em.line(vec + " out" + J + ";");
      for (std::int64_t e = 0; e < width; ++e) {
        const std::int64_t k = j * width + e;
        em.line("out" + J + ".v[" + std::to_string(e) + "] = in" + std::to_string(k % c_count) +
                ".v[" + std::to_string(k / c_count) + "];");
      }
      em.line("reinterpret_cast<" + vec + "*>(" + dst + " + p * " + C + ")[" + J + "] = out" + J +
              ";");
    }
  } else {
    em.line("const " + ix + " n = q / " + S + ";");
    em.line("const " + ix + " s = q % " + S + ";");
    for (std::int64_t c = 0; c < c_count; ++c) {
      Index idx;
      idx.dims = {"n", std::to_string(c), "s / " + std::to_string(z[3]),
                  "s % " + std::to_string(z[3])};
      auto v = em.value(source, idx);
      if (!v) return v.error();
      em.line(dst + "[q * " + C + " + " + std::to_string(c) + "] = " + stored_as(dtype, *v) + ";");
    }
  }
  em.close();
  return finish_kernel(
      ctx, em, {block, 1, 1}, std::clamp<std::int64_t>((threads + block - 1) / block, 1, kSMs * 16),
      "channels-last copy " + std::to_string(shape.numel()) + " x " + dtype + kCopyByPositions +
          (words ? std::to_string(width) + " positions" : std::string("a position")) + " of " + C +
          " channels" + (words ? ", 16-byte words" : ""),
      {{source, dtype, true, shape.numel()}});
}

}  // namespace

Result<GeneratedKernel> copy_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  const bool channels_last = ctx.group.note == fusion::kLayoutCopyNote;
  const bool mask = ctx.group.note == fusion::kMaskCopyNote;
  graph::NodeId source = 0;
  std::set<graph::NodeId> members = ctx.members;
  if (channels_last) {
    if (ctx.group.inputs.size() != 1)
      return make_error(ctx.where + ": a layout copy reads one buffer");
    source = ctx.group.inputs.front();
  } else if (mask) {
    // The mask is the attention call's fourth argument; the call itself runs elsewhere.
    bool found = false;
    for (const graph::NodeId n : ctx.group.nodes) {
      const graph::Node& node = g.node(n);
      if (ops::classify(node.target).op_class != ops::OpClass::attention) continue;
      if (node.args.size() < 4 || !node.args[3].is_node()) continue;
      source = node.args[3].as_node();
      members.erase(n);
      found = true;
    }
    if (!found) return make_error(ctx.where + ": no attention mask to copy");
  } else if (auto cat = cat_copy_kernel(ctx)) {
    return std::move(*cat);
  } else {
    return make_error(ctx.where + ": writes no buffer");
  }
  const auto shape = shape_of(g.node(source), ctx.hints);
  if (!shape)
    return make_error(ctx.where + ": copies " + g.node(source).name + ", which has no annotation");
  if (channels_last && shape->sizes.size() != 4) {
    return make_error(ctx.where + ": a channels-last copy of a rank-" +
                      std::to_string(shape->sizes.size()) + " tensor");
  }
  const std::int64_t numel = shape->numel();
  const std::string ix = index_type(ctx, numel);
  const std::string& dtype = g.node(source).meta->dtype;
  const auto stored = [&](const std::string& v) { return stored_as(dtype, v); };
  const std::string dst =
      "scratch_" + ValueEmitter(g, members, ctx.hints, ctx.where).param_name(source).substr(2);
  ValueEmitter em(g, members, ctx.hints, ctx.where, ctx.run_seed);
  if (channels_last) {
    // NCHW (n, c, s = h * W + w) lands at (n * S + s) * C + c: a transpose of each image's C x S
    // matrix. Through a shared-memory tile of TC channels x TS positions, reads run along s (the
    // source's inner dim) and writes along c (the copy's), both coalesced; element by element,
    // one of the two would stride by C or S.
    const auto& z = shape->sizes;
    const std::int64_t c_count = z[1];
    const std::int64_t s_count = z[2] * z[3];
    if (c_count <= 4) return few_channel_copy(ctx, em, source, *shape, dst);
    if (s_count <= 32) return small_image_copy(ctx, em, source, *shape, dst);
    std::int64_t ts = 1;
    while (ts < 32 && ts < s_count) ts *= 2;
    const std::int64_t tc = 1024 / ts;
    const std::int64_t c_tiles = (c_count + tc - 1) / tc;
    const std::int64_t s_tiles = (s_count + ts - 1) / ts;
    const std::int64_t tiles = z[0] * c_tiles * s_tiles;
    const std::string TS = std::to_string(ts);
    const std::string TC = std::to_string(tc);
    const std::string C = std::to_string(c_count);
    const std::string S = std::to_string(s_count);
    em.line("__shared__ " + compute_type(dtype) + " tile[" + TC + "][" + std::to_string(ts + 1) +
            "];");
    em.open("for (" + ix + " t = blockIdx.x; t < " + std::to_string(tiles) + "; t += gridDim.x) {");
    em.line("const " + ix + " n = t / " + std::to_string(c_tiles * s_tiles) + ";");
    em.line("const " + ix + " c0 = (t / " + std::to_string(s_tiles) + ") % " +
            std::to_string(c_tiles) + " * " + TC + ";");
    em.line("const " + ix + " s0 = t % " + std::to_string(s_tiles) + " * " + TS + ";");
    em.line("__syncthreads();  // the previous tile's writes are done with it");
    em.open("for (int k = threadIdx.x; k < 1024; k += blockDim.x) {");
    em.line("const " + ix + " c = c0 + k / " + TS + ";");
    em.line("const " + ix + " s = s0 + k % " + TS + ";");
    em.open("if (c < " + C + " && s < " + S + ") {");
    Index idx;
    idx.dims = {"n", "c", "s / " + std::to_string(z[3]), "s % " + std::to_string(z[3])};
    auto v = em.value(source, idx);
    if (!v) return v.error();
    em.line("tile[k / " + TS + "][k % " + TS + "] = " + *v + ";");
    em.close();
    em.close();
    em.line("__syncthreads();");
    em.open("for (int k = threadIdx.x; k < 1024; k += blockDim.x) {");
    em.line("const " + ix + " s = s0 + k / " + TC + ";");
    em.line("const " + ix + " c = c0 + k % " + TC + ";");
    em.open("if (c < " + C + " && s < " + S + ") {");
    em.line(dst + "[(n * " + S + " + s) * " + C +
            " + c] = " + stored("tile[k % " + TC + "][k / " + TC + "]") + ";");
    em.close();
    em.close();
    em.close();
    return finish_kernel(ctx, em, {256, 1, 1}, std::clamp<std::int64_t>(tiles, 1, kSMs * 16),
                         "channels-last copy " + std::to_string(numel) + " x " + dtype +
                             ", tiles of " + TC + " channels x " + TS + " positions",
                         {{source, dtype, true, numel}});
  }
  em.open("for (" + ix + " i = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; i < " +
          std::to_string(numel) + "; i += " + ix + "(gridDim.x) * blockDim.x) {");
  auto v = em.value(source, delinearize("i", shape->sizes));
  if (!v) return v.error();
  em.line(dst + "[i] = " + stored(*v) + ";");
  em.close();
  return finish_kernel(ctx, em, {256, 1, 1},
                       std::clamp<std::int64_t>((numel + 255) / 256, 1, kSMs * 64),
                       "attention mask copy " + std::to_string(numel) + " x " + dtype,
                       {{source, dtype, true, numel}});
}

}  // namespace fxscope::codegen
