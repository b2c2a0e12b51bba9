// Lookup in the op table by the key of an FX target.

#include "fxscope/ops/op_registry.h"

#include <algorithm>

#include "fxscope/core/text.h"

namespace fxscope::ops {

std::string_view to_string(OpClass op_class) {
  switch (op_class) {
    case OpClass::pointwise:
      return "pointwise";
    case OpClass::broadcast:
      return "broadcast";
    case OpClass::injective:
      return "injective";
    case OpClass::reduction:
      return "reduction";
    case OpClass::gemm:
      return "gemm";
    case OpClass::conv:
      return "conv";
    case OpClass::attention:
      return "attention";
    case OpClass::view:
      return "view";
    case OpClass::opaque:
      return "opaque";
  }
  return "opaque";
}

std::string_view to_string(Lowering lowering) {
  switch (lowering) {
    case Lowering::pointwise:
      return "pointwise";
    case Lowering::view:
      return "view";
    case Lowering::reduction:
      return "reduction";
    case Lowering::welford:
      return "welford";
    case Lowering::scan:
      return "scan";
    case Lowering::window:
      return "window";
    case Lowering::extern_kernel:
      return "extern_kernel";
    case Lowering::getitem:
      return "getitem";
  }
  return "extern_kernel";
}

std::string_view op_key(std::string_view target) {
  constexpr std::string_view kOps = "torch.ops.";
  if (!text::starts_with(target, kOps)) return target;
  std::string_view rest = target.substr(kOps.size());
  // namespace.op.overload -> namespace.op; an op printed without overload keeps both parts.
  const std::size_t first = rest.find('.');
  if (first == std::string_view::npos) return rest;
  const std::size_t second = rest.find('.', first + 1);
  return second == std::string_view::npos ? rest : rest.substr(0, second);
}

std::string_view op_base_name(std::string_view target) {
  const std::string_view key = op_key(target);
  const std::size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

const OpInfo* find_op(std::string_view target) {
  const std::vector<OpInfo>& table = op_table();
  const std::string_view key = op_key(target);
  const auto it =
      std::lower_bound(table.begin(), table.end(), key,
                       [](const OpInfo& row, std::string_view k) { return row.name < k; });
  return it != table.end() && it->name == key ? &*it : nullptr;
}

OpInfo classify(std::string_view target) {
  if (const OpInfo* info = find_op(target)) return *info;
  OpInfo unknown;
  unknown.name = op_key(target);
  return unknown;  // opaque, run alone as an extern kernel: the safe reading of an unknown op
}

bool runs_in_library(std::string_view target) {
  const OpInfo* info = find_op(target);
  return info != nullptr && info->lowering == Lowering::extern_kernel &&
         info->op_class != OpClass::opaque;
}

bool is_view_op(const graph::Node& node) {
  return node.is_op() && classify(node.target).lowering == Lowering::view;
}

}  // namespace fxscope::ops
