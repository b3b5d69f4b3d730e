// Tensors created on a device by its backend: fill, arange, random.
#include <cmath>

#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/op_support.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"

namespace bp::core {

View fill(Device &device, int32_t dtype, int32_t rank, const int64_t *shape, double value) {
  View v = allocate_view(device, dtype, rank, shape);
  bp_plugin_tensor o;
  v.to_plugin(o);
  bp_op_attrs attrs = make_attrs();
  attrs.scalar = value;
  run(device, BP_OP_FILL, dtype, dtype, attrs, nullptr, 0, o);
  return v;
}

View arange(Device &device, int32_t dtype, double start, double stop, double step) {
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step) || step == 0)
    fail(BP_ERR_INVALID_ARGUMENT, "arange: start, stop and step must be finite and step non-zero");
  double n = std::ceil((stop - start) / step);
  if (!(n <= 9.0e15)) fail(BP_ERR_OUT_OF_MEMORY, "arange: too many elements");
  int64_t count = n > 0 ? int64_t(n) : 0;
  View v = allocate_view(device, dtype, 1, &count);
  bp_plugin_tensor o;
  v.to_plugin(o);
  bp_op_attrs attrs = make_attrs();
  attrs.scalar = start;
  attrs.scalar2 = step;
  run(device, BP_OP_ARANGE, dtype, dtype, attrs, nullptr, 0, o);
  return v;
}

View random(Device &device, int32_t op, int32_t dtype, int32_t rank, const int64_t *shape,
            double p0, double p1, uint64_t seed) {
  if (!bp_vocab_dtype_in_set(dtype, bp_vocab_op_dtypes(op)))
    fail(BP_ERR_DTYPE, std::string(op_name(op)) + ": random tensors have a float dtype, not " +
                           dtype_name(dtype));
  if (!std::isfinite(p0) || !std::isfinite(p1) || (op == BP_OP_RANDOM_NORMAL && p1 < 0))
    fail(BP_ERR_INVALID_ARGUMENT,
         std::string(op_name(op)) + ": parameters must be finite (and stddev >= 0)");
  View v = allocate_view(device, dtype, rank, shape);
  bp_plugin_tensor o;
  v.to_plugin(o);
  bp_op_attrs attrs = make_attrs();
  attrs.scalar = p0;
  attrs.scalar2 = p1;
  attrs.seed = seed;
  run(device, op, dtype, dtype, attrs, nullptr, 0, o);
  return v;
}

}  // namespace bp::core
