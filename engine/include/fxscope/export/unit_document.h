#pragma once
// The fxscope JSON of one planned unit: its Dynamo graph and post-grad graphs, every node
// annotated with its kernel, and the unit's notes in the metadata. It reloads with
// graph::parse_document, and dot_graphs() draws it again.

#include "fxscope/export/planned_unit.h"
#include "fxscope/graph/document.h"

namespace fxscope::exporting {

// Annotation keys written on post-grad nodes (and read back by dot_graphs).
inline constexpr const char* kKernelKey = "kernel";             // "triton_poi_fused_add_0"
inline constexpr const char* kKernelKindKey = "kernel_kind";    // "pointwise"
inline constexpr const char* kFusionGroupKey = "fusion_group";  // index in launch order
inline constexpr const char* kPredictedKey = "predicted_us";    // the group's predicted time
inline constexpr const char* kInductorKernelKey = "inductor_kernel";
// On Dynamo nodes: the kernels that compute them.
inline constexpr const char* kKernelsKey = "kernels";

graph::Document unit_document(const PlannedUnit& planned);

}  // namespace fxscope::exporting
