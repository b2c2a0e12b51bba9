#include "fxscope/trace/compile_id.h"

#include "fxscope/core/text.h"

namespace fxscope::trace {

bool CompileId::same_compile(const CompileId& other) const {
  return without_attempt() == other.without_attempt();
}

CompileId CompileId::without_attempt() const {
  CompileId id = *this;
  id.attempt = 0;
  return id;
}

std::string CompileId::str() const {
  // Dynamo's CompileId.__str__ and TraceId.__str__ (torch/_guards.py), which tlparse mirrors.
  std::string s;
  if (compiled_autograd_id >= 0) {
    s += '!';
    s += std::to_string(compiled_autograd_id);
    if (frame_id >= 0) s += "/";
  }
  if (frame_id >= 0) s += std::to_string(frame_id) + "/" + std::to_string(frame_compile_id);
  if (attempt > 0) {
    s += '_';
    s += std::to_string(attempt);
  }
  return s;
}

namespace {

std::optional<int> small_int(std::string_view s) {
  const auto v = text::parse_int(s);
  if (!v || *v < 0 || *v > 1'000'000'000) return std::nullopt;
  return static_cast<int>(*v);
}

}  // namespace

std::optional<CompileId> CompileId::parse(std::string_view s) {
  CompileId id;
  if (const auto us = s.rfind('_'); us != std::string_view::npos) {
    const auto attempt = small_int(s.substr(us + 1));
    if (!attempt) return std::nullopt;
    id.attempt = *attempt;
    s = s.substr(0, us);
  }
  if (text::starts_with(s, "!")) {
    s.remove_prefix(1);
    const auto slash = s.find('/');
    const auto ca = small_int(s.substr(0, slash));
    if (!ca) return std::nullopt;
    id.compiled_autograd_id = *ca;
    if (slash == std::string_view::npos) return id;
    s = s.substr(slash + 1);
  }
  const auto slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto frame = small_int(s.substr(0, slash));
  const auto compile = small_int(s.substr(slash + 1));
  if (!frame || !compile) return std::nullopt;
  id.frame_id = *frame;
  id.frame_compile_id = *compile;
  return id;
}

}  // namespace fxscope::trace
