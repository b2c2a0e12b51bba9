#pragma once
// Inductor's own record of which nodes each kernel computes, written when provenance tracking is
// on (TORCH_TRACE artifact `inductor_provenance_tracking_node_mappings`, a JSON object). Unlike
// the comments of the output code it is exact, so fusion results can be compared with it.

#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/core/result.h"
#include "fxscope/inductor/name_sets.h"

namespace fxscope::inductor {

// The four maps of the artifact. Kernel keys are debug handles "kernel_name:N" (N numbers the
// launches; extern calls read "extern_kernels.mm:2"), the same text as the output code's
// `# [Provenance debug handles]` comment before each launch (Launch::comments).
struct Provenance {
  NameSets kernel_to_post;  // cppCodeToPost: handle -> post-grad nodes it computes
  NameSets post_to_kernel;  // postToCppCode: post-grad node -> handles
  NameSets post_to_pre;     // postToPre: post-grad node -> pre-grad (Dynamo graph) nodes
  NameSets pre_to_post;     // preToPost: pre-grad node -> post-grad nodes
  Warnings warnings;        // entries that were not a name -> list of names

  // Post-grad nodes of every launch of the kernel named KERNEL (all its handles together).
  std::vector<std::string> post_nodes_of_kernel(std::string_view kernel) const;
};

// The kernel name of a debug handle: "triton_poi_fused_add_0:3" -> "triton_poi_fused_add_0".
std::string_view handle_kernel_name(std::string_view handle);

// Reads the artifact's JSON; an Error naming WHERE when it is not a JSON object.
Result<Provenance> parse_provenance(std::string_view json, std::string_view where);

}  // namespace fxscope::inductor
