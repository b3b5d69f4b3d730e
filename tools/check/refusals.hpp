// The verdict on a call plugin.h says a plugin refuses, in the words every
// group that makes such calls uses.
#pragma once

#include <string>

#include "plugin.hpp"

namespace bpcheck {

// "" when the call returned `expected` with a message (`message`: its
// last_error(), read right after it); else what follows the call's name in
// the failure (" returned BP_OK; it must be BP_ERR_SHAPE").
std::string refusal_failure(Plugin &p, bp_status got, bp_status expected, const char *message);

}  // namespace bpcheck
