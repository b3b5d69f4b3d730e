// What a composite's source includes first: the recording layer, as ag::,
// and the check that the file is one of core/CMakeLists.txt's
// composite_sources. Those compile with BP_CORE_COMPOSITES, which makes the
// raw operators' header (dispatch/operators.hpp) an #error, so nothing here
// can call around the recording layer and silently drop a gradient.
#pragma once

#ifndef BP_CORE_COMPOSITES
#error "list this file in composite_sources (core/CMakeLists.txt): that keeps the raw operators out of it"
#endif

#include "autograd/functions.hpp"

namespace bp::core {

namespace ag = autograd;

}  // namespace bp::core
