#pragma once
// Dynamo names a module's parameters and buffers after their owner's path:
// `L_self_modules_layer1_modules_0_modules_conv1_parameters_weight_` is `layer1.0.conv1.weight`.

#include <string>
#include <string_view>

namespace fxscope::graph {

// The owning module's dotted path ("layer1.0.conv1"), or "" when NAME is no parameter/buffer name.
std::string module_path_from_parameter(std::string_view name);

}  // namespace fxscope::graph
