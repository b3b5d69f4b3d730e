// Dropout: x * keep / (1 - p), the keep mask drawn from the float32
// RANDOM_UNIFORM stream of plugin.h (u(i) >= p), so that one seed drops the
// same elements on every backend and for every float dtype. The mask is a
// constant of the product: the gradient is dy * keep / (1 - p).
#include <cmath>
#include <string>

#include "autograd/functions.hpp"
#include "composites/spatial.hpp"
#include "dispatch/creation.hpp"
#include "dispatch/dtype_rules.hpp"
#include "dispatch/function_errors.hpp"
#include "errors/names.hpp"

namespace bp::core {

namespace ag = autograd;

View dropout(const View &x, double p, uint64_t seed) {
  const char *fn = "dropout";
  if (!is_float(x.dtype))
    function_fail(fn, BP_ERR_DTYPE, std::string("defined for float tensors, not ") + dtype_name(x.dtype));
  if (!(p >= 0 && p <= 1))
    function_fail(fn, BP_ERR_INVALID_ARGUMENT, "the probability " + std::to_string(p) + " is not in [0, 1]");
  // Everything dropped: x * 0, as torch gives (NaN and inf stay NaN).
  if (p == 1) return ag::binary_scalar(BP_OP_MUL, x, 0.0, false, BP_SCALAR_KIND_FLOAT);
  const View u = random(x.device(), BP_OP_RANDOM_UNIFORM, BP_FLOAT32, x.rank, x.shape, 0.0, 1.0, seed);
  const View keep = ag::binary_scalar(BP_OP_GE, u, p, false, BP_SCALAR_KIND_FLOAT);
  const View scale = ag::binary_scalar(BP_OP_MUL, ag::cast(keep, x.dtype), 1.0 / (1.0 - p), false, BP_SCALAR_KIND_FLOAT);
  return ag::binary(BP_OP_MUL, x, scale);
}

}  // namespace bp::core
