#include "fxscope/guards/tensor_match.h"

#include <string>

#include "fxscope/core/text.h"

namespace fxscope::guards {

namespace {

// The value of "name=value" when PART is that keyword argument.
std::optional<std::string_view> keyword(std::string_view part, std::string_view name) {
  part = text::trim(part);
  if (!text::starts_with(part, name) || part.size() <= name.size() || part[name.size()] != '=') {
    return std::nullopt;
  }
  return text::trim(part.substr(name.size() + 1));
}

// The device type the dispatch key set names: its first key that is a backend.
std::string backend_of(std::string_view keys) {
  const auto open = keys.find('(');
  const auto close = keys.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  for (const auto key : text::split_top_level(keys.substr(open + 1, close - open - 1), ",")) {
    const auto k = text::trim(key);
    if (k == "CUDA" || k == "CPU" || k == "MPS" || k == "XPU" || k == "Meta" || k == "HIP" ||
        k == "XLA" || k == "PrivateUse1" || text::starts_with(k, "Sparse")) {
      return std::string(k);
    }
  }
  return {};
}

}  // namespace

std::optional<Dims> parse_dims(std::string_view text_in) {
  const auto s = text::trim(text_in);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
  Dims dims;
  const auto inner = text::trim(s.substr(1, s.size() - 2));
  if (inner.empty()) return dims;
  for (const auto part : text::split_top_level(inner, ",")) {
    const auto item = text::trim(part);
    if (item == "None") {
      dims.emplace_back(std::nullopt);
    } else if (const auto v = text::parse_int(item)) {
      dims.emplace_back(*v);
    } else {
      return std::nullopt;
    }
  }
  return dims;
}

Result<TensorMatch> parse_tensor_match(std::string_view code) {
  const auto s = text::trim(code);
  constexpr std::string_view kCall = "check_tensor(";
  if (!text::starts_with(s, kCall) || !text::ends_with(s, ")")) {
    return make_error("expected check_tensor(...), found: " + std::string(s));
  }
  const auto parts =
      text::split_top_level(s.substr(kCall.size(), s.size() - kCall.size() - 1), ",");
  if (parts.size() < 8) {
    return make_error("expected 8 arguments to check_tensor, found " +
                      std::to_string(parts.size()));
  }
  TensorMatch match;
  match.source = std::string(text::trim(parts[0]));
  match.tensor_class = std::string(text::trim(parts[1]));
  match.dispatch_keys = std::string(text::trim(parts[2]));
  match.backend = backend_of(match.dispatch_keys);
  const auto dtype = parse_dtype(text::trim(parts[3]));
  if (!dtype) return make_error("unknown dtype " + std::string(text::trim(parts[3])));
  match.dtype = *dtype;
  bool have_device = false, have_grad = false, have_size = false, have_stride = false;
  for (std::size_t i = 4; i < parts.size(); ++i) {
    if (const auto v = keyword(parts[i], "device")) {
      // A CPU tensor has no device index: Dynamo prints None, c10 reports -1.
      const auto index = *v == "None" ? std::optional<std::int64_t>(-1) : text::parse_int(*v);
      if (!index) return make_error("unreadable device " + std::string(*v));
      match.device_index = static_cast<int>(*index);
      have_device = true;
    } else if (const auto g = keyword(parts[i], "requires_grad")) {
      if (*g != "True" && *g != "False") return make_error("unreadable requires_grad");
      match.requires_grad = *g == "True";
      have_grad = true;
    } else if (const auto sz = keyword(parts[i], "size")) {
      auto dims = parse_dims(*sz);
      if (!dims) return make_error("unreadable size " + std::string(*sz));
      match.sizes = std::move(*dims);
      have_size = true;
    } else if (const auto st = keyword(parts[i], "stride")) {
      auto dims = parse_dims(*st);
      if (!dims) return make_error("unreadable stride " + std::string(*st));
      match.strides = std::move(*dims);
      have_stride = true;
    }
  }
  if (!have_device || !have_grad || !have_size || !have_stride) {
    return make_error("check_tensor lacks device, requires_grad, size or stride");
  }
  if (match.sizes.size() != match.strides.size()) {
    return make_error("check_tensor's size and stride differ in rank");
  }
  return match;
}

}  // namespace fxscope::guards
