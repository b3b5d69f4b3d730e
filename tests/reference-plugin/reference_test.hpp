// Helpers shared by the reference plugin's tests, from the harness
// (tests/support/plugin_harness.hpp): a started plugin that owns every
// buffer a test makes, tensors from host values, and value checks.
#pragma once

#include "plugin_harness.hpp"

namespace ref_test {

using namespace bp_test;

// The reference plugin, started, plus every buffer the test allocates.
class Reference : public Session {
 public:
  Reference() : Session("reference") {}
};

}  // namespace ref_test
