#pragma once
// MD5 as PyTorch's has_payload field uses it: proof that a payload arrived whole.

#include <string>
#include <string_view>

namespace fxscope::trace {

// The lowercase hex MD5 digest of DATA.
std::string md5_hex(std::string_view data);

}  // namespace fxscope::trace
