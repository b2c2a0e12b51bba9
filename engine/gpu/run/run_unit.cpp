#include "fxscope/gpu/run_unit.h"

namespace fxscope::gpu {

const trace::CompileUnit* default_run_unit(const trace::TraceLog& log) {
  const trace::CompileUnit* first_aten = nullptr;
  for (const trace::CompileUnit& u : log.units()) {
    if (u.aot_graph() == nullptr) continue;
    if (u.find(trace::ArtifactKind::kFxGraphRunnable) != nullptr) return &u;
    if (first_aten == nullptr) first_aten = &u;
  }
  return first_aten;
}

std::string default_unit_line(const trace::CompileUnit& unit) {
  const bool runnable = unit.find(trace::ArtifactKind::kFxGraphRunnable) != nullptr;
  return "unit " + unit.id.without_attempt().str() +
         (runnable ? " (the first with an ATen graph and a runnable; --unit picks another)"
                   : " (the first with an ATen graph; none has a runnable; --unit picks another)");
}

}  // namespace fxscope::gpu
