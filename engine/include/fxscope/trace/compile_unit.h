#pragma once
// Everything the log says about one compile (one frame_id/frame_compile_id, all attempts).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/trace/artifact.h"
#include "fxscope/trace/chromium_event.h"
#include "fxscope/trace/compilation_metrics.h"
#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/stack_frame.h"

namespace fxscope::trace {

// A symbolic shape guard added while tracing (`guard_added_fast`): "Eq(s27, 256)".
struct ShapeGuard {
  std::string expr;
  Stack user_stack;
  CompileId id;
  std::size_t line = 0;
};

// A symbol created for a dynamic size or scalar (`create_symbol`): s77 = L['x'].size()[0].
struct ShapeSymbol {
  std::string symbol;
  std::string value;        // the hint value ("4")
  std::string value_range;  // "[2, int_oo]"
  std::string source;       // "L['x'].size()[0]"
  Stack user_stack;
  CompileId id;
  std::size_t line = 0;
};

// A problem torch.export met (draft export logs them and goes on): a guard it evaluated, a
// data-dependent expression it specialized, an operator with a missing or wrong fake kernel.
struct ExportIssue {
  std::string kind;    // "guard evaluated", "data-dependent expression", "missing fake kernel", ...
  std::string detail;  // the expression and what it was specialized to, or the operator and why
  Stack user_stack;    // where in the user's code, outermost first
  Stack stack;         // where in PyTorch
  std::size_t line = 0;
};

// One dimension list of the Dynamo graph's `sizes` map: name -> ["s77", "256"].
struct TensorSizes {
  std::string name;
  std::vector<std::string> dims;
};

// One compile unit in log order. Records of every attempt are kept with their own CompileId;
// the accessors answer for the final attempt, the one whose code Dynamo installed.
struct CompileUnit {
  CompileId id;  // attempt 0; see final_attempt
  // Who produced a unit whose records carry no compile id: "torch.export" or "AOTInductor" (ids
  // are then numbered in log order); empty for torch.compile's units, named by Dynamo's ids.
  std::string producer;
  int final_attempt = 0;
  std::size_t first_line = 0;       // 1-based line of the unit's first record
  Stack stack;                      // dynamo_start's stack, outermost first; empty if not logged
  std::vector<Artifact> artifacts;  // log order, every attempt
  std::vector<ShapeGuard> shape_guards;
  std::vector<ShapeSymbol> symbols;
  std::vector<ExportIssue> export_issues;
  std::optional<CompilationMetrics> metrics;
  // bwd_compilation_metrics in log order: one per backward graph compiled, so several when a
  // unit holds several graphs (DDPOptimizer splits a frame at its buckets).
  std::vector<CompilationMetrics> backward_metrics;
  std::vector<std::string_view> runtime_metrics;  // *_compilation_metrics_runtime envelopes
  // dynamo_timed's begin/end/instant events in log order: every attempt, the backward compile
  // and what runs at the first call (kernel autotuning, CUDA graph recording).
  std::vector<ChromiumEvent> chromium_events;
  std::vector<std::size_t> graph_breaks;  // indices into TraceLog::graph_breaks()
  std::optional<std::size_t> recompile;   // index into TraceLog::recompiles()

  // The user's code: innermost frame of `stack` outside installed packages (their model file or
  // the script line that called it), else the compiled frame.
  const StackFrame* user_frame() const { return innermost_user_frame(stack); }
  // The function Dynamo compiled: the innermost frame.
  const StackFrame* compiled_frame() const { return stack.empty() ? nullptr : &stack.back(); }

  // The last artifact of KIND (and DIRECTION unless kNone) in the final attempt, else in any
  // attempt; null when the log has none.
  const Artifact* find(ArtifactKind kind, Direction direction = Direction::kNone) const;
  std::vector<const Artifact*> find_all(ArtifactKind kind) const;
  const Artifact* dynamo_graph() const { return find(ArtifactKind::kDynamoGraph); }
  const Artifact* guards() const { return find(ArtifactKind::kGuards); }
  // aot_inference_graph, else aot_forward_graph.
  const Artifact* aot_graph() const;
  // Every AOT graph of the final attempt in log order: the inference or forward graph of each
  // module AOT compiled (a DDP-split unit compiles one per bucket), each followed by its
  // backward graph in training. Eager runs these, one op a kernel, where Inductor runs the
  // post-grad graphs.
  std::vector<const Artifact*> aot_graphs() const;
  // Inductor's code of each graph it compiled, the final attempt's: the output code of the
  // inference graph, or of the forward and the backward; AOTInductor's C++ wrapper where the log
  // holds no output code.
  std::vector<const Artifact*> inductor_codes() const;
  // The Dynamo graph's sizes map, read from its envelope; empty when absent.
  std::vector<TensorSizes> dynamo_sizes() const;
  bool failed() const { return metrics && metrics->failed(); }
};

}  // namespace fxscope::trace
