#pragma once
// Guards in plain words for the Guards & recompiles tab: "x: f32 tensor of size [8, 32] ...",
// "act == 'relu'", with Dynamo's L['x'] spelled as the user's own name.

#include <optional>
#include <string>
#include <string_view>

#include "fxscope/guards/guard.h"
#include "fxscope/guards/tensor_match.h"

namespace fxscope::views {

// "L['x']" -> "x", "L['self'].linear" -> "self.linear", G['g'] -> "g"; else as given.
std::string plain_source(std::string_view source);
// Every L['name'] / G['name'] in TEXT spelled plainly.
std::string plain_code(std::string_view text);

// One line saying what GUARD demands, ending in "(assumed)" where no input can decide it.
std::string guard_in_words(const guards::Guard& guard);
// Whether evaluating an input can make GUARD fail (tensor, constant, length, shape guards).
bool guard_is_checked(const guards::Guard& guard);

// "8x32", with "?" for a dynamic entry; "scalar" for no dims.
std::string dims_text(const guards::Dims& dims);

// The top-level input a guard source belongs to: "L['x'].size()[0]" -> "x"; nullopt when the
// source names no local (globals, relations between several).
std::optional<std::string> input_of_source(std::string_view source);

}  // namespace fxscope::views
