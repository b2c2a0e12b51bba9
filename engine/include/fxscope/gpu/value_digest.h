#pragma once
// What each group of a run wrote, kept small enough to travel from a mode's child process to the
// parent: per value, its largest magnitude, its sums and a fixed set of sampled elements. Two
// modes' digests of the same graph then name the first group whose value leaves its dtype's
// tolerance against eager's, which the outputs alone cannot: a training backward whose gradients
// are wrong says which kernel made them so.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// Elements sampled per value, evenly over its logical (row-major) order, first and last
// included: enough to catch a wrong row or channel, small enough that a 2,000-value training
// step's digests stay in tens of MB.
inline constexpr std::size_t kDigestSamples = 2048;

struct ValueDigest {
  std::string node;       // the graph node's name: the same in every mode's graph of a unit
  std::size_t step = 0;   // the plan step that last wrote it
  std::size_t group = 0;  // that step's group, its name and its kernel (or library call)
  std::string group_name;
  std::string kernel;
  std::string dtype;
  std::string computed_in;  // computed_in_dtypes: the loosest floating dtype on its way
  std::int64_t numel = 0;
  std::vector<std::int64_t> sizes;  // evaluated with the run's symbol values
  double max_abs = 0;               // over finite elements
  double sum = 0;                   // of finite elements
  double abs_sum = 0;
  // A sum or mean of its input (through casts and views), or a cast or view of one: the absolute
  // sum of its terms (for a mean, divided by the elements each output averages), from the
  // input's digest; 0 where the value sums nothing or its input was not digested. Floating
  // summation's error is bounded by the magnitude of the terms, not of the result, so a sum that
  // cancels (a batch norm's bias gradient, whose terms have a mean of about zero by construction)
  // is judged against it.
  double terms_abs_sum = 0;
  std::int64_t nonfinite = 0;
  std::vector<double> samples;  // at sample_positions(numel)
};

// ValueDigest::terms_abs_sum of node N of GRAPH (NUMEL elements), from the digest STORED gives
// of a node that holds a buffer (nullptr: none, a view): where N is a sum or mean of a digested
// value, through casts and views, or an index_put that accumulates (its self's and values'
// magnitudes, the values' own terms where they are a sum), or an add or sub with a sum among
// its operands (the operands' terms or magnitudes), or a cast or view of such a sum,
// through casts and views that store nothing; 0 otherwise.
double terms_abs_sum(const graph::Graph& graph, graph::NodeId n, std::int64_t numel,
                     const std::function<const ValueDigest*(graph::NodeId)>& stored);

// The logical indices digest_value samples for a value of NUMEL elements.
std::vector<std::int64_t> sample_positions(std::int64_t numel);

// DATA holds META's storage (its strides evaluated with HINTS).
ValueDigest digest_value(const graph::TensorMeta& meta, const std::byte* data,
                         const ops::SymbolHints& hints);

// ACTUAL against REFERENCE: the largest sampled difference over the reference's largest
// magnitude, or the sums' difference over its absolute sum, whichever is larger; infinite when
// the element counts differ or non-finite elements appear on one side only. For a sum, the
// magnitudes are at least those of its terms (terms_abs_sum, and its share per element).
double digest_error(const ValueDigest& reference, const ValueDigest& actual);
double digest_tolerance(const ValueDigest& value);
// Where ACTUAL's samples differ most from REFERENCE's: "[0, 37, 5, 6]: eager 1.5, here 0"; empty
// when no sample differs (the sums do).
std::string largest_difference(const ValueDigest& reference, const ValueDigest& actual);

struct Divergence {
  const ValueDigest* reference = nullptr;
  const ValueDigest* actual = nullptr;
  double error = 0;
  double tolerance = 0;
  std::size_t agreeing = 0;  // values both wrote that ACTUAL's earlier steps got right
};

// Over the values both digests hold, the one ACTUAL's steps wrote first (by step) whose error is
// outside its tolerance; nullopt when every shared value agrees.
std::optional<Divergence> first_divergence(const std::vector<ValueDigest>& reference,
                                           const std::vector<ValueDigest>& actual);

// "the first value outside tolerance is add_3, written by group 12 triton_poi_fused_add_3
// (kernel ...): 0.41 against bf16's 0.03 at 2048 sampled elements and the sums; the 40 values
// it wrote before agree with eager's", or that every shared value agrees.
std::string divergence_note(const std::optional<Divergence>& divergence, std::size_t shared);

// How many values both digests hold.
std::size_t shared_values(const std::vector<ValueDigest>& reference,
                          const std::vector<ValueDigest>& actual);

}  // namespace fxscope::gpu
