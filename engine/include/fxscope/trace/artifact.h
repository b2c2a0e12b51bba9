#pragma once
// A record of the log that carries a payload or names an artifact: graphs, output code, guards,
// and every artifact the reader does not interpret, so nothing is dropped.

#include <cstddef>
#include <string>
#include <string_view>

#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/payload.h"

namespace fxscope::trace {

// What an artifact is; kOther covers every name the reader keeps but does not interpret.
enum class ArtifactKind {
  kDynamoGraph,         // dynamo_output_graph
  kAotInferenceGraph,   // aot_inference_graph
  kAotForwardGraph,     // aot_forward_graph
  kAotBackwardGraph,    // aot_backward_graph
  kAotJointGraph,       // aot_joint_graph
  kPostGradGraph,       // artifact inductor_post_grad_graph
  kOutputCode,          // inductor_output_code
  kAotWrapperCode,      // graph_dump inductor_aot_wrapper_code: AOTInductor's C++ wrapper
  kAutotuneCode,        // artifact inductor_autotune_at_compile_time_code
  kGuards,              // dynamo_cpp_guards_str
  kFxGraphRunnable,     // artifact fx_graph_runnable
  kProvenanceMappings,  // artifact inductor_provenance_tracking_node_mappings (or, older,
                        // inductor_triton_kernel_to_post_grad_nodes)
  kTritonKernelInfo,    // artifact triton_kernel_info
  kGraphBreakReason,    // artifact dynamo_graph_break_reason
  kRecompileReasons,    // artifact recompile_reasons
  kOther,
};

// Which half of a training compile an Inductor product belongs to; kNone for inference units
// and for artifacts that are not per-direction.
enum class Direction { kNone, kForward, kBackward };

// One payload-bearing or artifact record, kept as views into the mapped log.
struct Artifact {
  ArtifactKind kind = ArtifactKind::kOther;
  std::string name;      // the artifact's name, or the record kind ("dynamo_output_graph")
  std::string encoding;  // artifact encoding ("string", "json"), empty for other kinds
  CompileId id;          // with the attempt that produced it
  Direction direction = Direction::kNone;
  std::size_t line = 0;       // 1-based line of the envelope
  std::string_view envelope;  // the envelope JSON (metadata such as sizes or filename)
  Payload payload;
};

// Maps a record kind (and for `artifact` records, the artifact name) to its ArtifactKind.
ArtifactKind artifact_kind(std::string_view kind, std::string_view artifact_name);
std::string_view to_string(ArtifactKind kind);
std::string_view to_string(Direction direction);

}  // namespace fxscope::trace
