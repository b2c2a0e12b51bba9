#pragma once
// What the forward and the backward attention kernels share: reading an SDPA operand's
// annotation, and the CUDA C text that loads and stores its elements in its dtype.

#include <optional>
#include <string>

#include "fxscope/gpu/attention_kernel.h"

namespace fxscope::gpu::attention_text {

// ARG as a 4-d f32 / bf16 / f16 tensor; an error names the node and what it lacks.
Result<AttentionTensor> tensor_of(const graph::Graph& g, const graph::Argument& arg,
                                  const ops::SymbolHints& hints, const std::string& where);
// A log-sum-exp tensor: f32, [B, H, L] or [B, H, L, 1]; nullopt otherwise.
std::optional<AttentionTensor> lse_of(const graph::Graph& g, graph::NodeId node,
                                      const ops::SymbolHints& hints);
// The getitem [INDEX] user of NODE, if any.
std::optional<graph::NodeId> getitem(const graph::Graph& g, graph::NodeId node, std::int64_t index);
std::optional<double> float_kwarg(const graph::Node& n, const char* name);
// The element index of T at (ROW, COL) for the kernel variables b and h.
std::string index_of(const AttentionTensor& t, const char* row, const char* col);
// NAME[index_of(T, ROW, COL)].
std::string offset(const char* name, const AttentionTensor& t, const char* row, const char* col);
// The element as a float expression.
std::string load(const char* name, const AttentionTensor& t, const char* row, const char* col);
// The statement storing the float expression VALUE into NAME at (ROW, COL).
std::string store(const char* name, const AttentionTensor& t, const char* row, const char* col,
                  const std::string& value);
// V as a CUDA float literal: "1.0f", "0.125f", "1e-05f" (never "1f", which C++ reads as a
// user-defined literal).
std::string float_literal(double v);
// "float", "fx_bf16" or "fx_half".
std::string c_type(const AttentionTensor& t);
// The forward kernel's signature after HEAD (`extern "C" __global__ void ...`): each tensor in its
// own dtype; its body opens by zeroing the philox seed and offset (no dropout is applied).
std::string signature(const AttentionSpec& s, const std::string& head);
// The statement writing row i's log-sum-exp (max M, sum of exponentials SUM) when it is taken.
std::string lse_store(const AttentionSpec& s, const char* m, const char* sum);

}  // namespace fxscope::gpu::attention_text
