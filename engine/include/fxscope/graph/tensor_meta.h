#pragma once
// The value annotation of an FX node: `f32[8, 64][64, 1]cuda:0` for a tensor (sizes and strides
// may be symbolic: `s77`, `2*s77`, `(s77//2)`, `u0`), or `Sym(s77)` for a symbolic scalar.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxscope::graph {

// One size or stride: an integer, or a symbolic expression kept as written.
struct Dim {
  std::int64_t value = 0;
  std::string expr;  // non-empty iff symbolic

  static Dim constant(std::int64_t v) { return Dim{v, {}}; }
  static Dim symbolic(std::string e) { return Dim{0, std::move(e)}; }
  bool is_symbolic() const { return !expr.empty(); }
  std::string to_string() const { return is_symbolic() ? expr : std::to_string(value); }
  friend bool operator==(const Dim&, const Dim&) = default;
};

// What a node's annotation says about its value: a tensor, or (sym set) a symbolic scalar.
struct TensorMeta {
  std::string dtype;  // as written: f32, bf16, i64, b8 ...; empty for a symbolic scalar
  std::vector<Dim> sizes;
  std::vector<Dim> strides;
  std::string device;  // cuda:0, cpu
  std::string sym;     // "s77" for `Sym(s77)`; empty for a tensor

  bool is_sym_scalar() const { return !sym.empty(); }
  std::size_t rank() const { return sizes.size(); }
  // The annotation as FX prints it: `f32[8, 64][64, 1]cuda:0` or `Sym(s77)`.
  std::string to_string() const;
  friend bool operator==(const TensorMeta&, const TensorMeta&) = default;
};

// Parses an annotation without its quotes; nullopt when it is not one of the two forms.
std::optional<TensorMeta> parse_tensor_meta(std::string_view annotation);

}  // namespace fxscope::graph
