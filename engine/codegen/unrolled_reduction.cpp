// A reduction over fewer elements than Inductor's unroll_reductions_threshold (8) computed inline
// where it is read: Reduction.create lowers such a reduction as a Pointwise whose inner function
// combines the few elements, so it fuses into a kernel over rows of another shape (a top-k's
// weights summed over k inside a reduction over the model dim). A reduction the kernel builder
// marks (loop_where_read: its values are the elements of the kernel's rows, a global average
// pool's mean read by a layer norm over the channels) is a loop over its elements instead, of
// any length, in the scope that reads it.

#include "reduction_shape.h"
#include "value_emitter.h"

namespace fxscope::codegen {

Result<std::string> ValueEmitter::unrolled_reduction(graph::NodeId node, const Index& idx) {
  auto shape = reduction_shape(g_, node, hints_);
  if (!shape) return fail(node, shape.error().message);
  const ReductionShape& r = *shape;
  if (r.rnumel >= kUnrolledReductionLimit && !looped_.count(node)) {
    return fail(node, "is a reduction over " + std::to_string(r.rnumel) +
                          " elements read by a kernel over rows of another shape");
  }
  const graph::Node& n = g_.node(node);
  std::string op;
  switch (r.combine) {
    case Combine::sum:
    case Combine::mean:
      op = "+";
      break;
    case Combine::prod:
      op = "*";
      break;
    case Combine::max:
      op = "fx_max";
      break;
    case Combine::min:
      op = "fx_min";
      break;
    default:
      return fail(node, "is a reduction of a kind not unrolled inline");
  }
  // The output's index names the kept dims (a kept reduced dim of size 1 as well).
  std::vector<std::string> kept;
  const bool keepdim = idx.dims.size() == r.input_sizes.size();
  for (std::size_t d = 0, k = 0; d < r.input_sizes.size(); ++d) {
    if (keepdim) {
      if (!r.reduced[d]) kept.push_back(idx.dims[d]);
      continue;
    }
    if (!r.reduced[d]) {
      if (k >= idx.dims.size()) return fail(node, "is indexed with too few dims");
      kept.push_back(idx.dims[k++]);
    }
  }
  std::vector<std::int64_t> reduced_sizes;
  for (std::size_t d = 0; d < r.input_sizes.size(); ++d) {
    if (r.reduced[d]) reduced_sizes.push_back(r.input_sizes[d]);
  }
  const std::string type = n.meta ? compute_type(n.meta->dtype) : "float";
  if (looped_.count(node)) {
    std::string identity = "(" + type + ")0";
    if (r.combine == Combine::prod) identity = "(" + type + ")1";
    if (r.combine == Combine::max || r.combine == Combine::min) {
      if (type != "float" && type != "double") {
        return fail(node, "is a max or min of integers, not looped where read");
      }
      identity = r.combine == Combine::max ? "(-FX_INF)" : "FX_INF";
    }
    const std::string acc = fresh("v_" + n.name + "_acc");
    line(type + " " + acc + " = " + identity + ";");
    const std::string rr = fresh("rr");
    open("for (int " + rr + " = 0; " + rr + " < " + std::to_string(r.rnumel) + "; ++" + rr + ") {");
    const Index at = delinearize(rr, reduced_sizes);
    Index in;
    for (std::size_t d = 0, k = 0, q = 0; d < r.input_sizes.size(); ++d) {
      in.dims.push_back(r.reduced[d] ? at.dims[q++] : kept[k++]);
    }
    auto v = value(r.input, in);
    if (!v) return v;
    const std::string term = "(" + type + ")(" + *v + ")";
    line(acc + " = " +
         (op.size() == 1 ? acc + " " + op + " " + term : op + "(" + acc + ", " + term + ")") + ";");
    close();
    if (r.combine != Combine::mean) return acc;
    return declare(type, n.name, acc + " / " + std::to_string(r.rnumel) + ".0f");
  }
  std::string acc;
  for (std::int64_t e = 0; e < r.rnumel; ++e) {
    // The element's position in the reduced dims, as constants.
    std::vector<std::int64_t> at(reduced_sizes.size(), 0);
    std::int64_t rest = e;
    for (std::size_t d = reduced_sizes.size(); d-- > 0;) {
      at[d] = rest % reduced_sizes[d];
      rest /= reduced_sizes[d];
    }
    Index in;
    for (std::size_t d = 0, k = 0, q = 0; d < r.input_sizes.size(); ++d) {
      in.dims.push_back(r.reduced[d] ? std::to_string(at[q++]) : kept[k++]);
    }
    auto v = value(r.input, in);
    if (!v) return v;
    const std::string term = "(" + type + ")(" + *v + ")";
    if (acc.empty()) {
      acc = term;
    } else {
      acc = op.size() == 1 ? "(" + acc + " " + op + " " + term + ")"
                           : op + "(" + acc + ", " + term + ")";
    }
  }
  if (r.combine == Combine::mean) acc = "(" + acc + " / " + std::to_string(r.rnumel) + ".0f)";
  return declare(type, n.name, acc);
}

}  // namespace fxscope::codegen
