#pragma once
// How far a fused mode's output is from eager's: the largest absolute difference over the
// largest magnitude of eager's output (a norm-wise relative error, so values near zero do not
// dominate), element by element in logical order, whatever strides each side has.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/graph/tensor_meta.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion {
struct FusionPlan;
}

namespace fxscope::gpu {

struct SkippedGroup;  // step_plan.h

// One output of a graph, copied back to the host (its storage bytes and its meta).
struct HostOutput {
  // The name of the graph node whose buffer holds it (itself, or what it is a view of): the same
  // in every mode's graph of a unit.
  std::string node;
  graph::TensorMeta meta;
  std::vector<std::byte> bytes;
  // The least precise floating dtype on the way to the value (computed_in_dtypes): an f32 output
  // of an autocast bf16 graph went through bf16 and is held to bf16's tolerance.
  std::string computed_in;
  // Why the value is no result: the group it depends on that did not run ("group 8
  // higher_order.cond: ..."), or why the whole mode's values are none. Empty when computed.
  std::string not_run;
};

// Sets not_run on each of OUTPUTS (those of output_nodes(GRAPH), in that order) whose value
// depends on a node of a SKIPPED group of PLAN: the first such group's reason. The other outputs
// stay comparable, so a graph with one op fxscope cannot run is still checked upstream of it.
void mark_not_run(std::vector<HostOutput>& outputs, const graph::Graph& graph,
                  const fusion::FusionPlan& plan, const std::vector<SkippedGroup>& skipped);

// OUT's elements laid out as META's strides place them, where OUT has META's sizes and other
// strides (a training step's forward run in eager's layout, the AOT graph's, feeding a backward
// that reads the post-grad graph's, where Inductor's layout optimisation makes convolution
// outputs channels-last). Nullopt where the sizes or dtypes differ or the strides agree.
std::optional<std::vector<std::byte>> relaid_as(const HostOutput& out,
                                                const graph::TensorMeta& meta,
                                                const ops::SymbolHints& hints);

// Per node of GRAPH, the floating dtype among its own and every value it was computed from
// whose tolerance is loosest (bf16, then f16, f32, f64); empty where no floating value leads to
// it (integer indices, shapes).
std::vector<std::string> computed_in_dtypes(const graph::Graph& graph);

// A mask or index computed from floats (relu's `x <= 0`, a batch norm's comparison) flips where
// its floats sit at the threshold and the modes round them differently: it may differ in this
// share of its elements. Integers computed from integers must match exactly.
inline constexpr double kMaskFlipShare = 1e-3;

// The error a value of DTYPE, computed through COMPUTED_IN (computed_in_dtypes; empty when no
// float leads to it), may have against eager: its dtype's tolerance, or for a floating value the
// looser one of the dtype it was computed in; kMaskFlipShare for a non-floating value computed
// from floats.
double value_tolerance(std::string_view dtype, std::string_view computed_in);
// value_tolerance of OUTPUT.
double output_tolerance(const HostOutput& output);

// One tensor on the host: its storage bytes (from the element its view starts at) and its meta.
struct HostView {
  const graph::TensorMeta* meta = nullptr;
  const std::byte* data = nullptr;
};

// How far ACTUAL is from EXPECTED at one element: |expected - actual|; 0 where both hold the
// same NaN or infinity; infinite where only one side is non-finite or they differ in it.
double element_difference(double expected, double actual);

// The relative error of ACTUAL against EXPECTED (largest difference over largest magnitude, at
// least MAGNITUDE: a sum's terms' magnitude per element, ValueDigest::terms_abs_sum; for integers
// and booleans, the share of elements that differ); infinity when their shapes differ or when
// only one side has a NaN or an infinity at some element; 0 for two empty tensors.
double relative_error(const HostView& expected, const HostView& actual,
                      const ops::SymbolHints& hints, double magnitude = 0);

// The root-mean-square difference of ACTUAL from EXPECTED over their elements in logical order
// (torch._dynamo.utils.rmse, an absolute figure); infinity where their shapes differ or only one
// side is non-finite at some element; 0 for two empty tensors.
double rms_difference(const HostView& expected, const HostView& actual,
                      const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
