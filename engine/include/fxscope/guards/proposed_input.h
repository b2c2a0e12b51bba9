#pragma once
// A what-if input: for some sources, a tensor's shape, strides, dtype and device, or a Python
// constant. Sources the input does not name keep the values the guards expect.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/guards/dtype.h"
#include "fxscope/guards/tensor_match.h"
#include "fxscope/guards/value.h"

namespace fxscope::guards {

// Where a tensor lives: "cuda" with an index, or "cpu" (index -1, as c10 reports it).
struct Device {
  std::string type = "cuda";
  int index = 0;
};

// Parses "cuda", "cuda:1", "cpu" or a bare index "0".
std::optional<Device> parse_device(std::string_view text);

// One tensor of the input; each field left out keeps what the guard expects. Strides left out
// are the contiguous strides of `sizes` when sizes are given.
struct TensorInput {
  std::string source;  // "L['x']"; a bare "x" means L['x']
  std::optional<Dims> sizes;
  std::optional<Dims> strides;
  std::optional<Dtype> dtype;
  std::optional<Device> device;
  std::optional<bool> requires_grad;
};

// One Python constant of the input: act = 'gelu', ___stack0 = 3.5.
struct ConstantInput {
  std::string source;
  Value value;
};

// A check as the call's own cache entry printed it, for a value no tensor or constant spells
// (an object's id, a type's id, a length, the global state): Dynamo prints such a check with
// the value it saw, so an earlier entry's check of the same kind on the same source holds
// exactly when it reads the same. Replay fills these from the new compile unit's guards.
struct ObservedCheck {
  std::string tag;     // "ID_MATCH", "TYPE_MATCH", "GLOBAL_STATE"
  std::string source;  // "L['act']"; "" for the global state
  std::string code;    // "___check_obj_id(L['act'], 140212)"
};

// The proposed input of one call of the compiled frame.
struct ProposedInput {
  std::vector<TensorInput> tensors;
  std::vector<ConstantInput> constants;
  std::vector<ObservedCheck> observed;

  // Lookups by source, in either spelling ("x" or "L['x']"); null when not given.
  const TensorInput* find_tensor(std::string_view source) const;
  const Value* find_constant(std::string_view source) const;
  const ObservedCheck* find_observed(std::string_view tag, std::string_view source) const;
  TensorInput& tensor(std::string_view source);  // finds or adds
  void set_constant(std::string_view source, Value value);
};

// "x" -> "L['x']"; "self.p" -> "L['self'].p"; sources already in L[...] / G[...] form, and
// Dynamo names such as ___stack0 (-> L['___stack0']), are returned canonical.
std::string canonical_source(std::string_view name);

// Contiguous strides of SIZES (unknown where a later size is unknown).
Dims contiguous_strides(const Dims& sizes);

}  // namespace fxscope::guards
