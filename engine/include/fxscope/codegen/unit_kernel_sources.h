#pragma once
// The CUDA C fxscope generates for each fused group of a compile unit in a mode, as files a user
// can read, diff or compile alone (`fxscope-cli fuse --cuda-source DIR`): the code `run` compiles
// with NVRTC, with the launch it uses in a header comment.

#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::codegen {

struct KernelSourceFile {
  std::string name;  // "0-0_g012_triton_poi_fused_add_relu_3.cu": unit, group id, group name
  std::string text;  // a header comment (where, group, nodes, launch), then the translation unit
};

struct UnitKernelSources {
  std::vector<KernelSourceFile> files;
  std::size_t library_groups = 0;    // GEMMs, convolutions, attention: cuBLAS / cuDNN run them
  std::size_t combo_groups = 0;      // foreach combo kernels (triton_for): not generated
  std::vector<std::string> refused;  // "group 7 ...: aten.bar has no CUDA lowering", one a group
};

// One group of F's plan (fxscope's, F.ours) as its file would hold it: a header comment (where,
// group, nodes, launch) and the kernel. WITH_PRELUDE false leaves out the helpers every kernel
// starts with (one line says so), for a view of the kernel alone. A group a library runs (GEMM,
// convolution, attention) or the generator refuses is an error saying which.
Result<std::string> group_kernel_source(const fusion::GraphFusion& f,
                                        const fusion::KernelGroup& group, bool with_prelude);

// Every generated kernel of the units of LOG (only UNIT_ID's when it is not empty) planned in
// MODE. An unknown unit is an error naming the units the log has.
Result<UnitKernelSources> unit_kernel_sources(const trace::TraceLog& log, fusion::Mode mode,
                                              const std::string& unit_id);

}  // namespace fxscope::codegen
