#include "fxscope/trace/artifact.h"

#include <array>
#include <utility>

namespace fxscope::trace {

namespace {

using Entry = std::pair<std::string_view, ArtifactKind>;

// Record kinds with a meaning of their own, then names of `artifact` records.
constexpr std::array<Entry, 9> kKinds{{
    {"dynamo_output_graph", ArtifactKind::kDynamoGraph},
    {"aot_inference_graph", ArtifactKind::kAotInferenceGraph},
    {"aot_forward_graph", ArtifactKind::kAotForwardGraph},
    {"aot_backward_graph", ArtifactKind::kAotBackwardGraph},
    {"aot_joint_graph", ArtifactKind::kAotJointGraph},
    {"inductor_output_code", ArtifactKind::kOutputCode},
    {"dynamo_cpp_guards_str", ArtifactKind::kGuards},
    {"inductor_post_grad_graph", ArtifactKind::kPostGradGraph},
    // torch.export's program is an ATen graph after decomposition, as AOT's inference graph is.
    {"exported_program", ArtifactKind::kAotInferenceGraph},
}};

constexpr std::array<Entry, 8> kArtifactNames{{
    {"inductor_triton_kernel_to_post_grad_nodes", ArtifactKind::kProvenanceMappings},
    {"inductor_autotune_at_compile_time_code", ArtifactKind::kAutotuneCode},
    {"inductor_post_grad_graph", ArtifactKind::kPostGradGraph},
    {"fx_graph_runnable", ArtifactKind::kFxGraphRunnable},
    {"inductor_provenance_tracking_node_mappings", ArtifactKind::kProvenanceMappings},
    {"triton_kernel_info", ArtifactKind::kTritonKernelInfo},
    {"dynamo_graph_break_reason", ArtifactKind::kGraphBreakReason},
    {"recompile_reasons", ArtifactKind::kRecompileReasons},
}};

}  // namespace

ArtifactKind artifact_kind(std::string_view kind, std::string_view artifact_name) {
  if (kind == "graph_dump") {
    return artifact_name == "inductor_aot_wrapper_code" ? ArtifactKind::kAotWrapperCode
                                                        : ArtifactKind::kOther;
  }
  if (kind == "artifact") {
    for (const auto& [name, k] : kArtifactNames) {
      if (name == artifact_name) return k;
    }
    return ArtifactKind::kOther;
  }
  for (const auto& [name, k] : kKinds) {
    if (name == kind) return k;
  }
  return ArtifactKind::kOther;
}

std::string_view to_string(ArtifactKind kind) {
  switch (kind) {
    case ArtifactKind::kDynamoGraph:
      return "dynamo graph";
    case ArtifactKind::kAotInferenceGraph:
      return "aot inference graph";
    case ArtifactKind::kAotForwardGraph:
      return "aot forward graph";
    case ArtifactKind::kAotBackwardGraph:
      return "aot backward graph";
    case ArtifactKind::kAotJointGraph:
      return "aot joint graph";
    case ArtifactKind::kPostGradGraph:
      return "post-grad graph";
    case ArtifactKind::kOutputCode:
      return "output code";
    case ArtifactKind::kAotWrapperCode:
      return "AOTInductor wrapper code";
    case ArtifactKind::kAutotuneCode:
      return "autotune-at-compile-time code";
    case ArtifactKind::kGuards:
      return "guards";
    case ArtifactKind::kFxGraphRunnable:
      return "fx graph runnable";
    case ArtifactKind::kProvenanceMappings:
      return "provenance mappings";
    case ArtifactKind::kTritonKernelInfo:
      return "triton kernel info";
    case ArtifactKind::kGraphBreakReason:
      return "graph break reason";
    case ArtifactKind::kRecompileReasons:
      return "recompile reasons";
    case ArtifactKind::kOther:
      return "other";
  }
  return "other";
}

std::string_view to_string(Direction direction) {
  switch (direction) {
    case Direction::kNone:
      return "";
    case Direction::kForward:
      return "forward";
    case Direction::kBackward:
      return "backward";
  }
  return "";
}

}  // namespace fxscope::trace
