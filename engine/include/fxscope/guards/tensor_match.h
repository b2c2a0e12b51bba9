#pragma once
// TENSOR_MATCH: what one guarded tensor must look like for a cache entry to be reused.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/guards/dtype.h"

namespace fxscope::guards {

// A dimension list where nullopt is a dynamic (unchecked or unknown) entry: [None, 32].
using Dims = std::vector<std::optional<std::int64_t>>;

// The parsed `check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32, device=0,
// requires_grad=False, size=[8, 64], stride=[64, 1])`.
struct TensorMatch {
  std::string source;        // "L['x']"
  std::string tensor_class;  // "Tensor", "Parameter"
  std::string
      dispatch_keys;    // "DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA)"
  std::string backend;  // "CUDA", "CPU": the device type the dispatch keys name
  Dtype dtype;
  int device_index = -1;
  bool requires_grad = false;
  Dims sizes;
  Dims strides;
};

// Parses the text after "TENSOR_MATCH: " (comment already removed).
Result<TensorMatch> parse_tensor_match(std::string_view code);

// Parses "[8, None, 64]" into dims; nullopt for anything else.
std::optional<Dims> parse_dims(std::string_view text);

}  // namespace fxscope::guards
