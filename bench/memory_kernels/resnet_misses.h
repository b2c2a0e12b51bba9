#pragma once
#include "harness.h"

namespace fxbench {

// Times the forms of ResNet-50's 7x7 double batch norm and stem batch norm + max-pool against
// copies made over RS and RD.
void resnet_misses(Word* const* rs, Word* const* rd);

}  // namespace fxbench
