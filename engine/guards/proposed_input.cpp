#include "fxscope/guards/proposed_input.h"

#include <cctype>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::guards {

std::optional<Device> parse_device(std::string_view text_in) {
  const auto s = text::trim(text_in);
  if (s == "cpu") return Device{"cpu", -1};
  if (const auto index = text::parse_int(s)) {
    if (*index < 0) return Device{"cpu", -1};
    return Device{"cuda", static_cast<int>(*index)};
  }
  const auto colon = s.find(':');
  const auto type = s.substr(0, colon);
  if (type.empty() ||
      type.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string_view::npos) {
    return std::nullopt;
  }
  Device device{std::string(type), 0};
  if (colon != std::string_view::npos) {
    const auto index = text::parse_int(s.substr(colon + 1));
    if (!index || *index < 0) return std::nullopt;
    device.index = static_cast<int>(*index);
  }
  return device;
}

std::string canonical_source(std::string_view name_in) {
  const auto name = text::trim(name_in);
  if (text::starts_with(name, "L[") || text::starts_with(name, "G[") || name == "G") {
    return std::string(name);
  }
  std::size_t end = 0;
  while (end < name.size() &&
         (std::isalnum(static_cast<unsigned char>(name[end])) || name[end] == '_')) {
    ++end;
  }
  if (end == 0) return std::string(name);
  return "L['" + std::string(name.substr(0, end)) + "']" + std::string(name.substr(end));
}

Dims contiguous_strides(const Dims& sizes) {
  Dims strides(sizes.size());
  std::optional<std::int64_t> running = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    if (running && sizes[i]) {
      // A size-0 or size-1 dim does not scale the stride of the dims before it below 1.
      running = *running * std::max<std::int64_t>(*sizes[i], 1);
    } else {
      running = std::nullopt;
    }
  }
  return strides;
}

const TensorInput* ProposedInput::find_tensor(std::string_view source) const {
  const auto wanted = canonical_source(source);
  for (const auto& t : tensors) {
    if (canonical_source(t.source) == wanted) return &t;
  }
  return nullptr;
}

const Value* ProposedInput::find_constant(std::string_view source) const {
  const auto wanted = canonical_source(source);
  for (const auto& c : constants) {
    if (canonical_source(c.source) == wanted) return &c.value;
  }
  return nullptr;
}

const ObservedCheck* ProposedInput::find_observed(std::string_view tag,
                                                  std::string_view source) const {
  for (const auto& o : observed) {
    if (o.tag == tag && o.source == source) return &o;
  }
  return nullptr;
}

TensorInput& ProposedInput::tensor(std::string_view source) {
  const auto wanted = canonical_source(source);
  for (auto& t : tensors) {
    if (canonical_source(t.source) == wanted) return t;
  }
  tensors.push_back(TensorInput{wanted, {}, {}, {}, {}, {}});
  return tensors.back();
}

void ProposedInput::set_constant(std::string_view source, Value value) {
  const auto wanted = canonical_source(source);
  for (auto& c : constants) {
    if (canonical_source(c.source) == wanted) {
      c.value = std::move(value);
      return;
    }
  }
  constants.push_back({wanted, std::move(value)});
}

}  // namespace fxscope::guards
