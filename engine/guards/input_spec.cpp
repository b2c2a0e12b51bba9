#include "fxscope/guards/input_spec.h"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/core/text.h"
#include "fxscope/guards/value.h"

namespace fxscope::guards {

namespace {

constexpr std::string_view kTensorForm = "NAME=8x64:f32[:stride=64x1][:cuda:0|cpu][:grad]";

Error spec_error(std::string_view kind, std::string_view spec, const std::string& what,
                 std::string_view form) {
  return make_error(std::string(kind) + " spec '" + std::string(spec) + "': " + what +
                    " (expected " + std::string(form) + ")");
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep, start)) {
    parts.push_back(s.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(s.substr(start));
  return parts;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "8x64" -> [8, 64]; nullopt names the first entry that is no non-negative integer in BAD.
std::optional<Dims> parse_extents(std::string_view text, std::string& bad) {
  Dims dims;
  for (const auto part : split(text, 'x')) {
    if (!all_digits(part)) {
      bad = std::string(part);
      return std::nullopt;
    }
    dims.push_back(text::parse_int(part));
  }
  return dims;
}

// Splits "NAME=REST" at the first '='; empty name when the spec has none.
std::pair<std::string_view, std::string_view> split_name(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos) return {{}, {}};
  return {text::trim(spec.substr(0, eq)), spec.substr(eq + 1)};
}

}  // namespace

Result<TensorInput> parse_tensor_spec(std::string_view spec) {
  const auto [name, rest] = split_name(spec);
  if (name.empty()) return spec_error("input", spec, "no NAME= before the shape", kTensorForm);
  TensorInput input;
  input.source = canonical_source(name);

  const auto fields = split(rest, ':');
  const auto sizes_text = text::trim(fields.front());
  if (sizes_text.empty() || sizes_text == "scalar") {
    input.sizes = Dims{};
  } else {
    std::string bad;
    input.sizes = parse_extents(sizes_text, bad);
    if (!input.sizes) {
      return spec_error("input", spec, "size '" + bad + "' is not a non-negative integer",
                        kTensorForm);
    }
  }

  for (std::size_t i = 1; i < fields.size(); ++i) {
    const auto field = text::trim(fields[i]);
    const auto twice = [&] {
      return spec_error("input", spec, "'" + std::string(field) + "' repeats a field", kTensorForm);
    };
    if (text::starts_with(field, "stride=")) {
      if (input.strides) return twice();
      std::string bad;
      input.strides = parse_extents(field.substr(7), bad);
      if (!input.strides) {
        return spec_error("input", spec, "stride '" + bad + "' is not a non-negative integer",
                          kTensorForm);
      }
      if (input.strides->size() != input.sizes->size()) {
        return spec_error("input", spec,
                          std::to_string(input.strides->size()) + " strides for " +
                              std::to_string(input.sizes->size()) + " sizes",
                          kTensorForm);
      }
    } else if (field == "cpu" || field == "cuda") {
      if (input.device) return twice();
      // "cuda:1" arrives split at its colon: the index is the next field.
      std::string device(field);
      if (field == "cuda" && i + 1 < fields.size() && all_digits(text::trim(fields[i + 1]))) {
        device += ":" + std::string(text::trim(fields[++i]));
      }
      input.device = parse_device(device);
    } else if (field == "grad" || field == "nograd") {
      if (input.requires_grad) return twice();
      input.requires_grad = field == "grad";
    } else if (const auto dtype = parse_dtype(field)) {
      if (input.dtype) return twice();
      input.dtype = dtype;
    } else {
      return spec_error("input", spec,
                        "'" + std::string(field) +
                            "' is neither a dtype (f32, bfloat16, torch.int64 ...) nor "
                            "stride=..., cuda[:N], cpu, grad or nograd",
                        kTensorForm);
    }
  }
  return input;
}

Result<ConstantInput> parse_constant_spec(std::string_view spec) {
  constexpr std::string_view kForm = "NAME=VALUE, such as act=relu or scale=0.5";
  const auto [name, value] = split_name(spec);
  if (name.empty()) return spec_error("constant", spec, "no NAME= before the value", kForm);
  if (text::trim(value).empty()) return spec_error("constant", spec, "no value after '='", kForm);
  return ConstantInput{canonical_source(name), parse_user_value(text::trim(value))};
}

}  // namespace fxscope::guards
