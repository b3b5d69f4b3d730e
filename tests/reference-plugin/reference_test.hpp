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

// `op` of one input into a new output of `out_shape` and T's dtype, read back.
template <class T>
std::vector<T> op_values(Reference &ref, int32_t op, const bp_plugin_tensor &in, const Shape &out_shape) {
  bp_plugin_tensor out = ref.empty(dtype_of<T>::value, out_shape);
  ref.exec(op, {in}, out);
  return ref.values<T>(out);
}

// Relative closeness in T of the operators built on libm's exp and log:
// the reference rounds its float64 result once into T.
template <class T>
double libm_closeness() {
  return table_tolerance(TestBound::libm_rounded_once, dtype_of<T>::value).rtol;
}

}  // namespace ref_test
