#include "fxscope/graph/tensor_meta.h"

#include "fxscope/core/text.h"
#include "fxscope/graph/python_text.h"

namespace fxscope::graph {

namespace {

// "8, s77, (s77//2)" -> dims; empty text is a 0-d list. False on an empty or bracketed item.
bool parse_dims(std::string_view list, std::vector<Dim>& out) {
  if (text::trim(list).empty()) return true;
  // Every node has an annotation: one buffer per thread instead of a vector per annotation.
  thread_local std::vector<std::string_view> parts;
  text::split_top_level(list, ",", parts);
  // One allocation per list: growing one Dim at a time reallocated and moved a rank-4 list 3 times.
  out.reserve(parts.size());
  for (const std::string_view part : parts) {
    const std::string_view d = text::trim(part);
    if (d.empty() || d.find_first_of("[]\"") != std::string_view::npos) return false;
    if (auto v = text::parse_int(d)) {
      out.push_back(Dim::constant(*v));
    } else {
      out.push_back(Dim::symbolic(std::string(d)));
    }
  }
  return true;
}

std::string join_dims(const std::vector<Dim>& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += dims[i].to_string();
  }
  return out + "]";
}

bool is_dtype(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string TensorMeta::to_string() const {
  if (is_sym_scalar()) return "Sym(" + sym + ")";
  return dtype + join_dims(sizes) + join_dims(strides) + device;
}

std::optional<TensorMeta> parse_tensor_meta(std::string_view annotation) {
  const std::string_view a = text::trim(annotation);
  TensorMeta meta;
  if (text::starts_with(a, "Sym(")) {
    if (python_text::matching_close(a, 3) != a.size() - 1 || a.size() <= 5) return std::nullopt;
    meta.sym = std::string(a.substr(4, a.size() - 5));
    return meta;
  }
  const std::size_t open = a.find('[');
  if (open == std::string_view::npos || !is_dtype(a.substr(0, open))) return std::nullopt;
  const std::size_t close = python_text::matching_close(a, open);
  if (close == std::string_view::npos) return std::nullopt;
  meta.dtype = std::string(a.substr(0, open));
  if (!parse_dims(a.substr(open + 1, close - open - 1), meta.sizes)) return std::nullopt;
  std::size_t rest = close + 1;
  if (rest < a.size() && a[rest] == '[') {
    const std::size_t close2 = python_text::matching_close(a, rest);
    if (close2 == std::string_view::npos) return std::nullopt;
    if (!parse_dims(a.substr(rest + 1, close2 - rest - 1), meta.strides)) return std::nullopt;
    if (meta.strides.size() != meta.sizes.size()) return std::nullopt;
    rest = close2 + 1;
  }
  const std::string_view device = a.substr(rest);
  if (device.find_first_of(" []\"'") != std::string_view::npos) return std::nullopt;
  meta.device = std::string(device);
  return meta;
}

}  // namespace fxscope::graph
