// Reduction kernels. A team of TEAM threads (a power of two) owns one row: its threads stride
// over the reduced elements, each accumulating privately, then combine through warp shuffles (and
// shared memory past a warp), so every thread of the team holds the row's result. Reductions
// that read other reductions of the same row (softmax: max, then sum of exp(x - max); layer
// norm: var_mean, then the normalised output) run in successive passes over the row; prologue
// ops are computed inside each pass, epilogue ops once per row after the last. When the row fits
// the team a few elements per thread (persistent), the first pass keeps the elements it loads in
// registers and later passes read them there, so each element leaves memory once.
//
// Split reductions (few rows, long rows) are two kernels: the first reduces SPLIT parts of each
// row into a scratch buffer of partial states, the second combines the parts and runs the
// epilogue. Where the first pass is split again, a middle kernel between them combines parts of
// the partial states into partial states. The scratch is part-major (part p of row x at
// p * rows + x), so a middle row (x, k) combines parts k, k + S1, ... and leaves its state in the
// slot of its own first part, which only it reads: the second pass finds the S1 states of row x
// where a first pass of S1 parts would have left them.

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/reduction_layout.h"
#include "kernel_context.h"
#include "reduction_shape.h"
#include "view_forward.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// Emits the store of W's value at IDX into W's buffer; the error, if either fails. Full-row
// writes and once-per-row epilogue writes differ only in IDX.
std::optional<Error> store_value(ValueEmitter& em, NodeId w, const Index& idx) {
  auto v = em.value(w, idx);
  if (!v) return v.error();
  auto st = store_statement(em, w, idx, *v);
  if (!st) return st.error();
  em.line(*st);
  return std::nullopt;
}

// The getitems of tuple TUPLE (var_mean, an online softmax) with the element each picks.
std::vector<std::pair<NodeId, std::int64_t>> getitems_of(const graph::Graph& g, NodeId tuple) {
  std::vector<std::pair<NodeId, std::int64_t>> out;
  for (NodeId u = tuple + 1; u < g.size(); ++u) {
    const graph::Node& un = g.node(u);
    if (ops::op_key(un.target) == "operator.getitem" && un.args.size() >= 2 &&
        un.args[0].is_node() && un.args[0].as_node() == tuple &&
        un.args[1].kind() == graph::Argument::Kind::integer) {
      out.emplace_back(u, un.args[1].as_int());
    }
  }
  return out;
}

std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// A thread holds at most this many elements of a row (persistent reductions), and keeps loaded
// values for later passes in at most kRowCacheRegisters registers: past that the row loop strides
// and passes re-read the row.
constexpr std::int64_t kMaxPersistentItems = 8;
constexpr int kRowCacheRegisters = 32;
// Threads an H200 keeps in flight (132 SMs x 2048): fewer, and memory latency is not hidden.
constexpr std::int64_t kDeviceThreads = kSMs * 2048;

// The team per row: about 4 elements a thread; wider while the rows alone leave the device idle
// and each thread keeps 8 elements, or while a row read by several passes would not fit the
// team's registers. Up to 512 threads when there are more rows than SMs: measured on the H200, a
// team of 1024 (64 registers a thread) made pointwise_chain's split reduction 40% slower than
// 256 or 512. With fewer rows than SMs each row has an SM to itself: a block of 1024 fills it.
// Column reductions (the kept dims innermost) take one thread per row (ops::one_thread_per_row).
LaunchConfig default_config(std::int64_t rows, std::int64_t rlen, int passes, bool trailing) {
  if (ops::one_thread_per_row(rows, trailing)) return {256, 1, 256};
  std::int64_t team = std::clamp<std::int64_t>(next_pow2((rlen + 3) / 4), 1, 256);
  const std::int64_t fill_cap = rows < kSMs ? 1024 : 512;
  while ((team < fill_cap && rows * team < kDeviceThreads && team * 2 * 8 <= rlen) ||
         (team < 1024 && passes > 1 && rlen > team * kMaxPersistentItems)) {
    team *= 2;
  }
  const std::int64_t block = std::max<std::int64_t>(team, 256);
  return {static_cast<int>(block), 1, static_cast<int>(block / team)};
}

// How one reduction accumulates: its state type, identity, element update and combiner.
struct Accumulator {
  std::string type;
  std::string identity;
  std::string combiner;
  std::vector<std::string> fields;  // the state's scalar fields ("" for a scalar state)
};

Accumulator accumulator(Combine c, const std::string& input_type) {
  const bool floating = input_type == "float" || input_type == "double";
  const std::string t = floating ? input_type : "long long";
  switch (c) {
    case Combine::sum:
    case Combine::mean:
      return {t, "(" + t + ")0", "FxSum()", {""}};
    case Combine::prod:
      return {t, "(" + t + ")1", "FxProd()", {""}};
    case Combine::max:
    case Combine::min: {
      const bool mx = c == Combine::max;
      std::string id = mx ? "(-FX_INF)" : "FX_INF";
      if (input_type == "long long")
        id = mx ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
      if (input_type == "int" || input_type == "bool") id = mx ? "(-2147483647 - 1)" : "2147483647";
      const std::string ty = input_type == "bool" ? "int" : input_type;
      return {ty, id, mx ? "FxMax()" : "FxMin()", {""}};
    }
    case Combine::any:
      return {"int", "0", "FxAny()", {""}};
    case Combine::all:
      return {"int", "1", "FxAll()", {""}};
    case Combine::welford:
      return {
          "FxWelfordState", "FxWelfordState{0.0f, 0.0f, 0.0f}", "FxWelford()", {"mean", "m2", "n"}};
    case Combine::argmax:
    case Combine::argmin:
      return {"FxArgState",
              c == Combine::argmax ? "FxArgState{-FX_INF, 0}" : "FxArgState{FX_INF, 0}",
              c == Combine::argmax ? "FxArgMax()" : "FxArgMin()",
              {"v", "i"}};
    case Combine::softmax:
      return {"FxSoftmaxState", "FxSoftmaxState{-FX_INF, 0.0f}", "FxOnlineSoftmax()", {"m", "s"}};
  }
  return {t, "0", "FxSum()", {""}};
}

// The state built from one element V at reduced position RR.
std::string element_state(Combine c, const Accumulator& a, const std::string& v,
                          const std::string& rr) {
  switch (c) {
    case Combine::welford:
      return "FxWelfordState{(float)(" + v + "), 0.0f, 1.0f}";
    case Combine::argmax:
    case Combine::argmin:
      return "FxArgState{(float)(" + v + "), (long long)(" + rr + ")}";
    case Combine::softmax:
      return "FxSoftmaxState{(float)(" + v + "), 1.0f}";
    case Combine::any:
    case Combine::all:
      return "(int)((" + v + ") != 0)";
    default:
      return "(" + a.type + ")(" + v + ")";
  }
}

std::string field_type(const Accumulator& a, const std::string& field) {
  if (field.empty()) return a.type;
  return field == "i" ? "long long" : "float";
}

std::string to_scratch(const std::string& e, const std::string& type) {
  return type == "long long" ? "__longlong_as_double(" + e + ")" : "(double)(" + e + ")";
}

std::string from_scratch(const std::string& e, const std::string& type) {
  return type == "long long" ? "__double_as_longlong(" + e + ")" : "(" + type + ")(" + e + ")";
}

std::string join_fields(const Accumulator& a, const std::string& prefix) {
  std::string out;
  for (std::size_t f = 0; f < a.fields.size(); ++f) {
    out += (f ? ", " : "") + prefix + std::to_string(f);
  }
  return a.fields.size() == 1 && a.fields[0].empty() ? prefix + "0" : a.type + "{" + out + "}";
}

}  // namespace

Result<GeneratedKernel> reduction_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  std::vector<ReductionShape> all;
  for (const NodeId n : ctx.members) {
    if (!is_reduction(g.node(n))) continue;
    auto r = reduction_shape(g, n, ctx.hints);
    if (!r) return make_error(ctx.where + ": " + r.error().message);
    all.push_back(std::move(*r));
  }
  // A reduction over fewer than kUnrolledReductionLimit elements beside a longer one is a
  // Pointwise to Inductor (Reduction.create unrolls it), over rows of its own or over the longer
  // one's rows (a router's top-k weights summed over k beside an RMS norm over the model dim):
  // the emitter computes it inline where it is read, and the kernel's rows are the longer
  // reduction's.
  const auto longer = std::find_if(all.begin(), all.end(), [](const ReductionShape& r) {
    return r.rnumel >= kUnrolledReductionLimit;
  });
  std::vector<ReductionShape> reds;
  for (ReductionShape& r : all) {
    const bool inline_rows = longer != all.end() && r.rnumel < kUnrolledReductionLimit;
    if (!inline_rows) reds.push_back(std::move(r));
  }
  if (reds.empty()) return make_error(ctx.where + ": has no reduction to generate");
  // A reduction whose values are the elements of another's rows (a global average pool's mean,
  // read by a layer norm over the channels) is computed where it is read, a loop over its own
  // elements inside the other's passes: Inductor's one persistent kernel reads the pool's sums
  // once an element. The kernel's rows are the outer reduction's. Not in a split reduction, whose
  // passes hand on partial states of the kernel's own reductions only.
  const bool split_kernel = ctx.group.note.starts_with(fusion::kSplitFirstPassNote) ||
                            ctx.group.note == fusion::kSplitMiddlePassNote;
  std::vector<NodeId> looped;
  if (!split_kernel) {
    const auto nested = [&](const ReductionShape& r) {
      return std::any_of(reds.begin(), reds.end(), [&](const ReductionShape& m) {
        return m.rows != r.rows && m.rows * m.rnumel == r.rows;
      });
    };
    for (const ReductionShape& r : reds) {
      if (nested(r)) looped.push_back(r.node);
    }
    std::erase_if(reds, [&](const ReductionShape& r) {
      return std::find(looped.begin(), looped.end(), r.node) != looped.end();
    });
  }
  const ReductionShape& ref = reds.front();
  for (const ReductionShape& r : reds) {
    if (r.rows != ref.rows) {
      return make_error(ctx.where + ": reductions over different rows (" + g.node(r.node).name +
                        ")");
    }
  }
  const bool eager = ctx.group.kind == fusion::GroupKind::eager_op;
  const bool first_pass = ctx.group.note.starts_with(fusion::kSplitFirstPassNote);
  const bool middle_pass = ctx.group.note == fusion::kSplitMiddlePassNote;
  const bool second_pass = !eager && !first_pass && !middle_pass &&
                           ctx.group.rnumel != ref.rnumel && ctx.group.numel == ref.rows &&
                           ctx.group.rnumel > 1;
  // Passes that combine partial states from scratch, and passes that leave them there.
  const bool combines = second_pass || middle_pass;
  const bool leaves_partials = first_pass || middle_pass;
  const std::int64_t split =
      first_pass ? std::max<std::int64_t>(1, ctx.group.numel / std::max<std::int64_t>(1, ref.rows))
                 : (combines ? ctx.group.rnumel : 1);
  if (middle_pass && (ctx.group.numel % ref.rows != 0 || ctx.group.numel <= ref.rows)) {
    return make_error(ctx.where + ": a middle pass of " + std::to_string(ctx.group.numel) +
                      " rows is no multiple of the reduction's " + std::to_string(ref.rows));
  }
  const bool softmax = std::any_of(reds.begin(), reds.end(), [](const ReductionShape& r) {
    return r.combine == Combine::softmax;
  });
  if ((first_pass || combines) && softmax) {
    return make_error(ctx.where + ": a split softmax reduction is not generated");
  }
  const std::int64_t chunk = (ref.rnumel + split - 1) / split;
  const std::int64_t rows =
      first_pass ? ref.rows * split : (middle_pass ? ctx.group.numel : ref.rows);
  const std::int64_t rlen = first_pass ? chunk : (combines ? split : ref.rnumel);

  // When each value becomes available: after the pass that finishes the reductions it reads.
  std::map<NodeId, std::size_t> red_of;
  for (std::size_t k = 0; k < reds.size(); ++k) red_of[reds[k].node] = k;
  std::map<NodeId, int> avail;
  std::vector<int> pass(reds.size(), 0);
  std::function<int(NodeId)> level = [&](NodeId n) -> int {
    if (const auto it = avail.find(n); it != avail.end()) return it->second;
    const graph::Node& node = g.node(n);
    int v = 0;
    const bool getitem_of_ours = ops::op_key(node.target) == "operator.getitem" &&
                                 !node.args.empty() && node.args[0].is_node() &&
                                 red_of.count(node.args[0].as_node());
    if (getitem_of_ours) {
      v = level(node.args[0].as_node());
    } else if (red_of.count(n)) {
      int p = 0;
      if (!combines) {
        for (const NodeId a : g.inputs(n)) p = std::max(p, level(a));
      }
      pass[red_of[n]] = p;
      v = p + 1;
    } else if (ctx.members.count(n)) {
      for (const NodeId a : g.inputs(n)) v = std::max(v, level(a));
    }
    avail[n] = v;
    return v;
  };
  std::vector<NodeId> full_writes;
  std::vector<NodeId> row_writes;
  std::vector<NodeId> own_writes;
  // Scatters (index_put) iterate over their values: a row's elements, stored in the pass that
  // has what they read, or one value a row, stored in the epilogue.
  std::vector<ScatterShape> full_scatters;
  std::vector<ScatterShape> row_scatters;
  for (const NodeId w : ctx.writes) {
    if (is_index_put(g.node(w))) {
      auto sc = scatter_shape(g, w, ctx.hints);
      if (!sc) return make_error(ctx.where + ": " + sc.error().message);
      if (sc->numel() == ref.rows && !leaves_partials) {
        row_scatters.push_back(std::move(*sc));
      } else if (sc->numel() == ref.rows * ref.rnumel && !leaves_partials && !second_pass) {
        full_scatters.push_back(std::move(*sc));
      } else if (!leaves_partials) {
        return make_error(ctx.where + ": the scatter " + g.node(w).name + " iterates over " +
                          std::to_string(sc->numel()) + " values, neither a row (" +
                          std::to_string(ref.rows) + ") nor the rows' elements");
      }
      continue;
    }
    const auto s = shape_of(g.node(w), ctx.hints);
    if (!s) return make_error(ctx.where + ": output " + g.node(w).name + " has no annotation");
    if (middle_pass) {
      continue;  // the first pass stores the elements, the second the rows
    }
    if (s->numel() == ref.rows && !first_pass) {
      row_writes.push_back(w);
    } else if (s->numel() == ref.rows * ref.rnumel && !second_pass) {
      // A first pass visits each element once too: it stores what needs no reduction's result
      // (a convolution's bias added in place); the check below refuses the rest.
      full_writes.push_back(w);
    } else if (!first_pass && !second_pass && level(w) == 0) {
      // Of another shape and reading none of the kernel's reductions (an unrolled reduction over
      // rows of its own): a grid-stride store of its own after the rows.
      own_writes.push_back(w);
    } else if (!first_pass) {
      return make_error(ctx.where + ": output " + g.node(w).name + " has " +
                        std::to_string(s->numel()) + " elements, neither a row (" +
                        std::to_string(ref.rows) + ") nor the rows' elements");
    }
  }
  int passes = 0;
  for (const ReductionShape& r : reds) passes = std::max(passes, level(r.node));
  for (const NodeId w : full_writes) passes = std::max(passes, level(w) + 1);
  for (const ScatterShape& sc : full_scatters) passes = std::max(passes, level(sc.node) + 1);
  // A split reduction's passes hand each reduction's partial states from one kernel to the
  // other: several reductions split together (a batch norm backward's two sums) must each be
  // complete within a part, so none may read another.
  if (first_pass && passes > 1) {
    return make_error(ctx.where + ": a split reduction of reductions that read each other, or " +
                      "whose elements stored need its result, is not generated");
  }

  LaunchConfig config = ctx.config;
  if (ctx.default_config) config = default_config(rows, rlen, passes, ref.trailing);
  if (config.block <= 0 || config.rows_per_block <= 0 || config.block % config.rows_per_block) {
    return make_error(ctx.where + ": launch config needs block divisible by rows_per_block");
  }
  const std::int64_t team = config.block / config.rows_per_block;
  if (next_pow2(team) != team || config.block > 1024) {
    return make_error(ctx.where + ": threads per row must be a power of two, block <= 1024");
  }
  const std::string ix = index_type(ctx, ref.rows * ref.rnumel);
  const std::string T = std::to_string(team);
  const std::string RPB = std::to_string(config.rows_per_block);
  // Persistent: a thread's few elements of the row are unrolled, so their loads are all in
  // flight at once, and a row read by several passes stays in registers after the first.
  const std::int64_t items = (rlen + team - 1) / team;
  const bool persistent = !first_pass && items <= kMaxPersistentItems;

  // The guard of a persistent thread's item: a row past the last (when the rows do not fill the
  // blocks) and a position past the row's end (when the team does not divide the row). Where
  // neither can happen it is left out, since the compiler cannot prove it: guarded, each item's
  // loads and their first use sat in a branch of their own (PTX of GPT-2's layer norm), so the
  // items' loads were not all in flight together. That kernel took 2.7 us in the model where the
  // bench's unguarded form of it took 2.1 (bench_memory_kernels); the change is not yet timed.
  std::string item_guard;
  if (rows % config.rows_per_block != 0) item_guard = "active";
  if (rlen % team != 0) {
    item_guard += (item_guard.empty() ? "" : " && ") + std::string("r < ") + std::to_string(rlen);
  }
  item_guard = item_guard.empty() ? "{" : "if (" + item_guard + ") {";

  // Few long rows (eager var_mean over pointwise_chain's 64 rows of 65,536: a block a row left
  // 68 of 132 SMs idle, at 54-61% of a same-size copy kernel): where the device has thread block
  // clusters, a cluster of CLUSTER blocks shares each row. Each block reduces a contiguous part of
  // it, and the blocks combine their partial states through distributed shared memory
  // (fx_cluster_reduce), so the row is still one kernel, as the op is in eager PyTorch.
  int cluster = 1;
  if (ctx.clusters && !persistent && !first_pass && !combines && config.rows_per_block == 1) {
    while (cluster < 8 && rows * cluster * 2 <= kSMs && rlen % (cluster * 2) == 0 &&
           rlen / (cluster * 2) >= team * 16) {
      cluster *= 2;
    }
  }
  const std::string C = std::to_string(cluster);
  const std::int64_t row_part = rlen / cluster;  // the elements of a row one block reduces

  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  for (const NodeId n : looped) em.loop_where_read(n);
  if (cluster > 1) {
    em.open("for (" + ix + " row0 = " + ix + "(blockIdx.x) / " + C + "; row0 < " +
            std::to_string(rows) + "; row0 += " + ix + "(gridDim.x) / " + C + ") {");
    em.line("// A cluster of " + C + " blocks a row; this block reduces part cpart of it.");
    em.line("const int cpart = int(blockIdx.x % " + C + ");");
  } else {
    em.open("for (" + ix + " row0 = " + ix + "(blockIdx.x) * " + RPB + "; row0 < " +
            std::to_string(rows) + "; row0 += " + ix + "(gridDim.x) * " + RPB + ") {");
  }
  em.line("// Team of " + T + " threads per row; threads past the last row add identities.");
  em.line("const " + ix + " row = row0 + threadIdx.x / " + T + ";");
  em.line("const int lane = threadIdx.x % " + T + ";");
  em.line("const bool active = row < " + std::to_string(rows) + ";");
  if (first_pass) {
    em.line("// Split pass 1: row = original row * " + std::to_string(split) +
            " + part; a part reduces " + std::to_string(chunk) + " elements.");
    em.line("const " + ix + " xrow = row / " + std::to_string(split) + ";");
    em.line("const " + ix + " part = row % " + std::to_string(split) + ";");
  } else if (middle_pass) {
    em.line("// Split middle pass: row = part of the second pass * " + std::to_string(ref.rows) +
            " + original row; it combines the first pass's parts row + k * " +
            std::to_string(rows) + ".");
    em.line("const " + ix + " xrow = row % " + std::to_string(ref.rows) + ";");
  } else {
    em.line("const " + ix + " xrow = row;");
  }
  // A persistent row's variance is one pass of shifted sums (FxShiftedState: the sums of x - K and
  // its square, K the row's first element) over the elements a thread holds, and one team
  // reduction. Welford's update divides once an element and its combine once a shuffle: on the
  // H200 GPT-2's layer norm (128 rows x 768) took 2.7 us so against 2.1 us with two sums (the
  // mean, then the centred squares: two reductions), and 1.98 us with shifted sums in one
  // (bench_memory_kernels).
  // A looped row (not split) does the same: its Welford chain, a division an element, kept each
  // thread's loads from being in flight together (pointwise_chain's eager var_mean, 64 rows of
  // 65536, at 63% of a same-size copy kernel: the SASS issued 8 of 16 unrolled loads up front,
  // the rest behind the divisions).
  const auto shifted_sum = [&](std::size_t k) {
    // Not a split reduction's passes: they hand Welford states from one to the other. Not a
    // reduction of a later pass (a layer norm of a layer norm's output): its shift, the input at
    // the row's first element, is read before any pass, when the values it needs are not yet.
    return (persistent || !first_pass) && !combines && reds[k].combine == Combine::welford &&
           pass[k] == 0;
  };
  std::vector<Accumulator> accs;
  for (std::size_t k = 0; k < reds.size(); ++k) {
    const std::string in_type = compute_type(g.node(reds[k].input).meta->dtype);
    if (shifted_sum(k)) {
      accs.push_back(
          {"FxShiftedState", "FxShiftedState{0.0f, 0.0f}", "FxShiftedSum()", {"s", "q"}});
      em.line("FxShiftedState acc" + std::to_string(k) + " = {0.0f, 0.0f};  // " +
              g.node(reds[k].node).name + ": sums of x - shift" + std::to_string(k) +
              " and its square");
      continue;
    }
    accs.push_back(accumulator(reds[k].combine, in_type));
    em.line(accs[k].type + " acc" + std::to_string(k) + " = " + accs[k].identity + ";  // " +
            g.node(reds[k].node).name);
  }
  // The index of a full-size tensor of SIZES at (xrow, rr): the reference reduction's input
  // keeps its dims from xrow and takes its reduced dims from rr; other shapes of the same
  // number of elements follow its row-major order.
  std::vector<std::int64_t> kept;
  std::vector<std::int64_t> reduced;
  for (std::size_t d = 0; d < ref.input_sizes.size(); ++d) {
    (ref.reduced[d] ? reduced : kept).push_back(ref.input_sizes[d]);
  }
  const Index kept_idx = delinearize("xrow", kept);
  const Index red_idx = delinearize("rr", reduced);
  Index ref_idx;
  {
    std::size_t ki = 0;
    std::size_t ri = 0;
    for (std::size_t d = 0; d < ref.input_sizes.size(); ++d) {
      ref_idx.dims.push_back(ref.reduced[d] ? red_idx.dims[ri++] : kept_idx.dims[ki++]);
    }
    if (ref.trailing) ref_idx.linear = "xrow * " + std::to_string(ref.rnumel) + " + rr";
  }
  // The index of a tensor of SIZES (of the reference input's number of elements) at (xrow, rr).
  const auto full_index_of = [&](const std::vector<std::int64_t>& sizes) -> Index {
    if (sizes == ref.input_sizes) return ref_idx;
    std::string lin = ref_idx.linear;
    if (lin.empty()) {
      for (std::size_t d = 0; d < ref.input_sizes.size(); ++d) {
        if (ref.input_sizes[d] == 1) continue;
        lin = lin.empty() ? ref_idx.dims[d]
                          : "(" + lin + ") * " + std::to_string(ref.input_sizes[d]) + " + " +
                                ref_idx.dims[d];
      }
      if (lin.empty()) lin = "0";
    }
    return delinearize(lin, sizes);
  };
  const auto full_index = [&](NodeId n) -> Index {
    const auto s = shape_of(g.node(n), ctx.hints);
    return s ? full_index_of(s->sizes) : ref_idx;
  };
  // A value stored through a permute of a value of the iteration's own shape lands where the
  // row's element goes, not at the same row-major position (a layer norm's output permuted for
  // attention). What a kernel loads is walked backward from the load instead (full_index).
  const auto store_index = [&](NodeId n) -> Index {
    const auto in_rows = [&](NodeId base) -> std::optional<Index> {
      const auto s = shape_of(g.node(base), ctx.hints);
      if (!s || s->sizes != ref.input_sizes) return std::nullopt;
      return ref_idx;
    };
    if (auto forward = index_through_views(g, n, ctx.hints, in_rows)) return *forward;
    // A value the rows read through views of it (a convolution permuted for a layer norm) is
    // stored where the row's element was loaded from.
    for (const ReductionShape& r : reds) {
      if (auto back = index_of_view_base(g, r.input, full_index(r.input), n, ctx.hints)) {
        return *back;
      }
    }
    return full_index(n);
  };
  // The pass that stores full write W: the one its value is ready in, but a value the kernel loads
  // from W's own buffer and stores back whole (a convolution's bias added in place, as Inductor's
  // in_out_ptr) is stored in the last pass, so that every pass loads what the library call left.
  const auto in_place = [&](NodeId w) { return ctx.members.count(w) == 0; };
  const auto store_pass = [&](NodeId w) { return in_place(w) ? passes - 1 : level(w); };

  // Each shifted-sum variance's K: its input at the row's first element (0 past the last row).
  for (std::size_t k = 0; k < reds.size(); ++k) {
    if (!shifted_sum(k)) continue;
    const std::string K = std::to_string(k);
    em.line("float shift" + K + " = 0.0f;");
    em.open("if (active) {");
    em.line("const " + ix + " rr = 0;");
    auto v = em.value(reds[k].input, full_index(reds[k].input));
    if (!v) return v.error();
    em.line("shift" + K + " = (float)(" + *v + ");");
    em.close();
  }

  std::vector<KernelParam> scratch;
  const std::size_t cache_at = em.body_size();
  // Loads of later passes that do not depend on the reductions (a layer norm's weight and bias):
  // the first pass makes them, so they are in flight with the row's own loads rather than a
  // memory round trip after the reduction.
  std::vector<std::pair<NodeId, Index>> early_loads;
  if (persistent && passes > 1) {
    em.open_row_cache("it", "rr", static_cast<int>(items), kRowCacheRegisters);
    ValueEmitter rehearsal = em;
    for (const ReductionShape& r : reds) {
      rehearsal.bind(r.node, "0.0f");
      for (const auto& [u, element] : getitems_of(g, r.node)) rehearsal.bind(u, "0.0f");
    }
    rehearsal.note_row_loads(true);
    rehearsal.open("for (int it = 0; it < " + std::to_string(items) + "; ++it) {");
    rehearsal.open("if (active) {");
    for (int p = 1; p < passes; ++p) {
      for (std::size_t k = 0; k < reds.size(); ++k) {
        if (pass[k] == p) (void)rehearsal.value(reds[k].input, full_index(reds[k].input));
      }
      for (const NodeId w : full_writes) {
        if (store_pass(w) == p) (void)rehearsal.value(w, store_index(w));
      }
    }
    early_loads = rehearsal.noted_row_loads();
  }
  for (int p = 0; p < passes; ++p) {
    em.line("// pass " + std::to_string(p + 1) + " of " + std::to_string(passes) + " over the row");
    if (p + 1 == passes) em.freeze_row_cache();
    if (persistent) {
      em.line("#pragma unroll");
      em.open("for (int it = 0; it < " + std::to_string(items) + "; ++it) {");
      em.line("const int r = lane + it * " + T + ";");
      em.open(item_guard);
    } else {
      // Unrolled, so that each thread has several loads in flight: with one at a time, a row
      // per block of pointwise_chain's 64 rows held eager var_mean to 36% of copy bandwidth; four
      // at a time held it to 54% of a same-size copy kernel (64 SMs each with 16 KB in flight).
      // Up to 16 where a thread's share of the row has that many elements.
      const std::int64_t per_thread = row_part / team;
      const int unroll = per_thread >= 32 ? 16 : per_thread >= 8 ? 8 : 4;
      em.open("if (active) {");
      em.line("#pragma unroll " + std::to_string(unroll));
      if (cluster > 1) {
        const std::string P = std::to_string(row_part);
        em.open("for (int r = cpart * " + P + " + lane; r < cpart * " + P + " + " + P +
                "; r += " + T + ") {");
      } else {
        em.open("for (int r = lane; r < " + std::to_string(rlen) + "; r += " + T + ") {");
      }
    }
    if (first_pass) {
      em.line("const " + ix + " rr = part * " + std::to_string(chunk) + " + r;");
      // The last part is short only when the row does not split evenly.
      if (ref.rnumel % split != 0) em.line("if (rr >= " + std::to_string(ref.rnumel) + ") break;");
    } else {
      em.line("const " + ix + " rr = r;");
    }
    for (std::size_t k = 0; k < reds.size(); ++k) {
      if (pass[k] != p) continue;
      const std::string acc = "acc" + std::to_string(k);
      const Accumulator& a = accs[k];
      if (combines) {
        // Combine the parts an earlier pass left in scratch: state fields are stored as doubles.
        const std::string base =
            "(rr * " + std::to_string(rows) + " + row) * " + std::to_string(a.fields.size());
        const std::string sname = "scratch_" + em.param_name(reds[k].node).substr(2);
        // One name per accumulator: a group's reductions combine their parts in one scope.
        const std::string part = "part" + std::to_string(k) + "_";
        for (std::size_t f = 0; f < a.fields.size(); ++f) {
          em.line("const " + field_type(a, a.fields[f]) + " " + part + std::to_string(f) + " = " +
                  from_scratch(sname + "[" + base + " + " + std::to_string(f) + "]",
                               field_type(a, a.fields[f])) +
                  ";");
        }
        em.line(acc + " = " + a.combiner + "(" + acc + ", " + join_fields(a, part) + ");");
        continue;
      }
      auto v = em.value(reds[k].input, full_index(reds[k].input));
      if (!v) return v.error();
      if (shifted_sum(k)) {
        const std::string d = "d" + std::to_string(k);
        em.line("const float " + d + " = (float)(" + *v + ") - shift" + std::to_string(k) + ";");
        em.line(acc + ".s += " + d + ";");
        em.line(acc + ".q += " + d + " * " + d + ";");
        continue;
      }
      if (reds[k].combine == Combine::welford) {
        em.line(acc + " = fx_welford_add(" + acc + ", (float)(" + *v + "));");
        continue;
      }
      em.line(acc + " = " + a.combiner + "(" + acc + ", " +
              element_state(reds[k].combine, a, *v, "rr") + ");");
    }
    // In-place stores come last in their pass: what the pass computes from the same buffer
    // loads it first.
    for (const bool last : {false, true}) {
      for (const NodeId w : full_writes) {
        if (store_pass(w) != p || in_place(w) != last) continue;
        if (auto e = store_value(em, w, store_index(w))) return *e;
      }
    }
    for (const ScatterShape& sc : full_scatters) {
      if (level(sc.node) != p) continue;
      if (auto e = emit_scatter(em, sc, full_index_of(sc.indexed))) return *e;
    }
    if (p == 0) {
      for (const auto& [node, idx] : early_loads) {
        if (auto v = em.value(node, idx); !v) return v.error();
      }
    }
    em.close();
    em.close();  // the persistent item's guard, or the looped row's
    for (std::size_t k = 0; k < reds.size(); ++k) {
      if (pass[k] != p) continue;
      const std::string acc = "acc" + std::to_string(k);
      const std::string K = std::to_string(k);
      em.line(acc + " = fx_team_reduce(" + acc + ", " + accs[k].combiner + ", " + T + ");");
      if (cluster > 1) {
        em.line(acc + " = fx_cluster_reduce(" + acc + ", " + accs[k].combiner + ", " + C + ");");
      }
      if (shifted_sum(k)) {
        // mean = K + sum(d) / n; n * variance = sum(d^2) - sum(d)^2 / n.
        const std::string n_elems = std::to_string(rlen) + ".0f";
        em.line("const float red" + K + "_dm = " + acc + ".s / " + n_elems + ";");
        em.line("const float red" + K + "_mean = shift" + K + " + red" + K + "_dm;");
        em.line("const float red" + K + "_var = fx_max(" + acc + ".q - " + acc + ".s * red" + K +
                "_dm, 0.0f) / fx_max(" + n_elems + " - " + float_literal(reds[k].correction) +
                ", 0.0f);");
      }
      if (leaves_partials) continue;
      const graph::Node& rn = g.node(reds[k].node);
      const std::string out_t = rn.meta ? compute_type(rn.meta->dtype) : "float";
      const std::string n_elems = std::to_string(ref.rnumel);
      switch (reds[k].combine) {
        case Combine::mean:
          em.line("const float red" + K + " = (float)" + acc + " / " + n_elems + ".0f;");
          break;
        case Combine::any:
        case Combine::all:
          em.line("const bool red" + K + " = " + acc + " != 0;");
          break;
        case Combine::argmax:
        case Combine::argmin:
          em.line("const long long red" + K + " = " + acc + ".i;");
          if (reds[k].values_and_indices) {
            em.line("const float red" + K + "_value = " + acc + ".v;");
          }
          break;
        case Combine::welford:
          if (shifted_sum(k)) break;  // red_mean and red_var are out already
          em.line("const float red" + K + "_var = " + acc + ".m2 / fx_max(" + acc + ".n - " +
                  float_literal(reds[k].correction) + ", 0.0f);");
          em.line("const float red" + K + "_mean = " + acc + ".mean;");
          break;
        case Combine::softmax:
          em.line("const float red" + K + "_max = " + acc + ".m;");
          em.line("const float red" + K + "_sum = " + acc + ".s;");
          break;
        default:
          em.line("const " + out_t + " red" + K + " = (" + out_t + ")" + acc + ";");
      }
      const bool tuple = reds[k].combine == Combine::welford && !rn.meta;
      if (reds[k].values_and_indices) {
        for (const auto& [u, element] : getitems_of(g, reds[k].node)) {
          em.bind(u, "red" + K + (element == 0 ? "_value" : ""));
        }
      } else if (reds[k].combine == Combine::softmax || tuple) {
        const std::string f0 = reds[k].combine == Combine::softmax ? "_max" : "_var";
        const std::string f1 = reds[k].combine == Combine::softmax ? "_sum" : "_mean";
        for (const auto& [u, element] : getitems_of(g, reds[k].node)) {
          em.bind(u, "red" + K + (element == 0 ? f0 : f1));
        }
      } else {
        em.bind(reds[k].node, "red" + K + (reds[k].combine == Combine::welford ? "_var" : ""));
      }
    }
  }
  if (leaves_partials) {
    // Each reduction's partial state into a scratch of its own, part-major (the next pass reads
    // them in the same order). A middle row's slot is the first it combined, read by it alone.
    const std::string slot =
        first_pass ? "(part * " + std::to_string(ref.rows) + " + xrow)" : "row";
    const std::int64_t parts = first_pass ? split : split * ctx.group.numel / ref.rows;
    em.open("if (active && lane == 0) {");
    for (std::size_t k = 0; k < reds.size(); ++k) {
      const Accumulator& a = accs[k];
      const std::string acc = "acc" + std::to_string(k);
      const std::string sname = "scratch_" + em.param_name(reds[k].node).substr(2);
      for (std::size_t f = 0; f < a.fields.size(); ++f) {
        const std::string field = a.fields[f].empty() ? acc : acc + "." + a.fields[f];
        em.line(sname + "[" + slot + " * " + std::to_string(a.fields.size()) + " + " +
                std::to_string(f) + "] = " + to_scratch(field, field_type(a, a.fields[f])) + ";");
      }
      scratch.push_back({reds[k].node, "f64", true,
                         ref.rows * parts * static_cast<std::int64_t>(a.fields.size())});
    }
    em.close();
  } else if (!row_writes.empty() || !row_scatters.empty()) {
    em.line("// epilogue: once per row");
    em.open(cluster > 1 ? "if (active && lane == 0 && cpart == 0) {"
                        : "if (active && lane == 0) {");
    for (const NodeId w : row_writes) {
      const auto s = shape_of(g.node(w), ctx.hints);
      // Through a permute, from a value of the rows' own shape (the reduction's output).
      const auto per_row = [&](NodeId n) -> std::optional<Index> {
        const auto shape = shape_of(g.node(n), ctx.hints);
        if (!shape || shape->numel() != rows) return std::nullopt;
        return delinearize("xrow", shape->sizes);
      };
      const Index at =
          index_through_views(g, w, ctx.hints, per_row).value_or(delinearize("xrow", s->sizes));
      if (auto e = store_value(em, w, at)) return *e;
    }
    for (const ScatterShape& sc : row_scatters) {
      if (auto e = emit_scatter(em, sc, delinearize("xrow", sc.indexed))) return *e;
    }
    em.close();
  }
  if (second_pass) {
    for (std::size_t k = 0; k < reds.size(); ++k) {
      scratch.push_back({reds[k].node, "f64", false,
                         ref.rows * split * static_cast<std::int64_t>(accs[k].fields.size())});
    }
  }
  em.close();
  for (const NodeId w : own_writes) {
    const auto s = shape_of(g.node(w), ctx.hints);
    em.open("for (" + ix + " i = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; i < " +
            std::to_string(s->numel()) + "; i += " + ix + "(gridDim.x) * blockDim.x) {");
    if (auto e = store_value(em, w, delinearize("i", s->sizes))) return *e;
    em.close();
  }

  const std::string cached = em.close_row_cache();
  if (!cached.empty()) {
    em.insert_body(cache_at, cached);
  }
  std::string names;
  for (const ReductionShape& r : reds) {
    names += (names.empty() ? "" : ", ") + std::string(ops::op_base_name(g.node(r.node).target));
  }
  return finish_kernel(ctx, em, config, cluster > 1 ? rows * cluster : row_grid(rows, config),
                       "reduction " + std::to_string(rows) + " rows x " + std::to_string(rlen) +
                           " (" + names + "), " + std::to_string(passes) +
                           (passes == 1 ? " pass" : " passes") + ", " +
                           (persistent ? "persistent" : "looped") + ", " + T + " threads per row" +
                           (cached.empty() ? "" : ", row in registers") +
                           (first_pass    ? ", split pass 1"
                            : middle_pass ? ", split middle pass"
                            : second_pass ? ", split pass 2"
                                          : "") +
                           (cluster > 1 ? ", clusters of " + C + " blocks a row" : ""),
                       scratch, cluster);
}

}  // namespace fxscope::codegen
