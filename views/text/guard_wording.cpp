#include "text/guard_wording.h"

namespace fxscope::views {
namespace {

// Replaces each PREFIX['name'] in TEXT by name.
std::string unquote_all(std::string text, std::string_view prefix) {
  const std::string open = std::string(prefix) + "['";
  for (auto at = text.find(open); at != std::string::npos; at = text.find(open, at)) {
    const auto close = text.find("']", at + open.size());
    if (close == std::string::npos) break;
    text.replace(at, close + 2 - at, text.substr(at + open.size(), close - at - open.size()));
  }
  return text;
}

std::string list_text(const guards::Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
  }
  return out + "]";
}

std::string tensor_words(const guards::Guard& guard) {
  const guards::TensorMatch& t = *guard.tensor;
  std::string out = plain_source(t.source) + ": " + std::string(t.dtype.short_name) + " " +
                    (t.tensor_class.empty() ? "Tensor" : t.tensor_class) + " of size " +
                    list_text(t.sizes) + ", stride " + list_text(t.strides);
  if (t.device_index >= 0) {
    out += ", on " + (t.backend.empty() ? std::string("cuda") : t.backend) + ":" +
           std::to_string(t.device_index);
  } else if (!t.backend.empty()) {
    out += ", on " + t.backend;
  }
  return out + (t.requires_grad ? ", requires grad" : "");
}

}  // namespace

std::string plain_source(std::string_view source) {
  return plain_code(source);
}

std::string plain_code(std::string_view text) {
  return unquote_all(unquote_all(std::string(text), "L"), "G");
}

bool guard_is_checked(const guards::Guard& guard) {
  switch (guard.kind) {
    case guards::GuardKind::kTensorMatch:
    case guards::GuardKind::kConstant:
    case guards::GuardKind::kLength:
    case guards::GuardKind::kShape:
    case guards::GuardKind::kType:
      return true;
    default:
      return false;
  }
}

std::string guard_in_words(const guards::Guard& guard) {
  using guards::GuardKind;
  switch (guard.kind) {
    case GuardKind::kTensorMatch:
      if (guard.tensor) return tensor_words(guard);
      break;
    case GuardKind::kType:
      if (!guard.type_name.empty()) {
        return plain_source(guard.source) + " is a " + guard.type_name;
      }
      break;
    case GuardKind::kId:
      return plain_source(guard.source) + " is the same object as when compiled (assumed)";
    case GuardKind::kAmbient:
      return guard.tag + " unchanged (assumed)";
    case GuardKind::kStructure:
    case GuardKind::kOpaque:
      return plain_code(guard.code) + " (assumed)";
    default:
      break;
  }
  return plain_code(guard.code);
}

std::string dims_text(const guards::Dims& dims) {
  if (dims.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out += (i ? "x" : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
  }
  return out;
}

std::optional<std::string> input_of_source(std::string_view source) {
  if (!source.starts_with("L['")) return std::nullopt;
  const auto close = source.find("']");
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(source.substr(3, close - 3));
}

}  // namespace fxscope::views
