// Which torch.compile mode produced a compile, from the Inductor config its runnable prints.

#include "fxscope/fusion/captured_mode.h"

#include <string>

namespace fxscope::fusion {

std::optional<Mode> captured_mode(const trace::CompileUnit& unit,
                                  const trace::Artifact& post_grad) {
  const trace::Artifact* runnable = nullptr;
  for (const trace::Artifact* r : unit.find_all(trace::ArtifactKind::kFxGraphRunnable)) {
    if (r->line < post_grad.line) runnable = r;
  }
  if (!runnable) return std::nullopt;
  const std::string text = runnable->payload.text();
  // max-autotune also turns CUDA graphs on, so its own option is looked for first.
  if (text.find("torch._inductor.config.max_autotune = True") != std::string::npos) {
    return Mode::max_autotune;
  }
  if (text.find("torch._inductor.config.triton.cudagraphs = True") != std::string::npos) {
    return Mode::reduce_overhead;
  }
  return Mode::default_mode;
}

std::optional<Mode> captured_mode(const trace::CompileUnit& unit) {
  const trace::Artifact* graph = unit.find(trace::ArtifactKind::kPostGradGraph);
  return graph ? captured_mode(unit, *graph) : std::nullopt;
}

}  // namespace fxscope::fusion
