#pragma once
// Dynamo names a module's parameters and buffers after their owner's path:
// `L_self_modules_layer1_modules_0_modules_conv1_parameters_weight_` is `layer1.0.conv1.weight`.

#include <optional>
#include <string>
#include <string_view>

namespace fxscope::graph {

// The owning module's dotted path ("layer1.0.conv1"), or "" when NAME is no parameter/buffer name.
std::string module_path_from_parameter(std::string_view name);

// The dotted path of the attribute EXPR reads from the graph's module, as FX prints a get_attr
// (and a call_module's callee): `self.conv1.weight` is "conv1.weight"; a name that is no Python
// identifier goes through getattr, so `getattr(self.layer1, "0").conv1.weight` is
// "layer1.0.conv1.weight". nullopt when EXPR is anything else.
std::optional<std::string> attribute_path(std::string_view expr);

}  // namespace fxscope::graph
