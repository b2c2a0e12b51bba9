#pragma once
// Reads JSON objects as raw text, without building a DOM: a log's envelopes are mostly timing
// events and big metrics objects of which the reader needs a handful of fields, and a DOM per
// line would cost more than the rest of the pass.

#include <functional>
#include <optional>
#include <string_view>

#include "fxscope/trace/compile_id.h"

namespace fxscope::trace {

// True for the envelope keys that describe a record rather than name its kind.
bool is_envelope_meta_key(std::string_view key);

// Calls FN(key, raw value text) for each member of the JSON object OBJECT, in order, until FN
// returns false. Returns false when OBJECT is not one structurally sound object (unbalanced,
// unterminated string, trailing bytes); literals are not validated. Keys are raw (unescaped).
bool for_each_member(std::string_view object,
                     const std::function<bool(std::string_view key, std::string_view value)>& fn);

// What the reader needs from every envelope: its kind, the kind's value and the compile id.
struct EnvelopeHead {
  std::string_view kind;  // the first key that is not a meta key; empty when there is none
  std::string_view body;  // the raw JSON value under `kind`
  CompileId id;           // invalid when the record has no frame_id / compiled_autograd_id
};

// nullopt when JSON is not a structurally sound object.
std::optional<EnvelopeHead> scan_envelope(std::string_view json);

}  // namespace fxscope::trace
