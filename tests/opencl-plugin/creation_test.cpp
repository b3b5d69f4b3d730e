// FILL, ARANGE and the random streams against the reference, into dense and
// strided outputs. RANDOM_UNIFORM must give the very same values.
#include "backplane/kernels/random.h"
#include "opencl_test.hpp"

using namespace ocl_test;

namespace {

std::vector<View> outputs(int32_t dtype) {
  return {dense(dtype, {1000}), strided(dtype, {3, 4}, {1, 5}, 2), strided(dtype, {}, {}, 1),
          dense(dtype, {0, 3}), strided(dtype, {2, 3, 4}, {24, 1, 6})};
}

}  // namespace

TEST_CASE("fill converts its scalar like the reference, for every dtype", "[creation]") {
  for (int32_t dtype : kAllTypes)
    for (double value : {2.75, -3.5, 0.0, -0.0, 1e10})
      for (const View &out : outputs(dtype)) {
        if (value == 1e10 && (dtype == BP_INT32)) continue;  // out of range: unspecified
        check_against_reference(BP_OP_FILL, attrs_with(value), {}, out, kExact,
                                std::string("fill ") + dtype_name(dtype) + " " +
                                    std::to_string(value));
      }
}

TEST_CASE("arange computes start + i * step in float64, then converts", "[creation]") {
  int device = 0;
  for (int32_t dtype : kAllTypes) {
    const bool r = supported(ref(), BP_OP_ARANGE, dtype, dtype);
    REQUIRE(supported(ocl(), BP_OP_ARANGE, dtype, dtype) == r);
    if (!r) continue;
    for (auto start_step : {std::make_pair(1.5, 0.1), std::make_pair(-3.0, 2.0),
                            std::make_pair(0.1, 1.0 / 3.0)})
      for (const View &out : outputs(dtype)) {
        check_against_reference(BP_OP_ARANGE, attrs_with(start_step.first, start_step.second), {},
                                out, kExact, std::string("arange ") + dtype_name(dtype), device);
        device = 1 - device;
      }
  }
}

TEST_CASE("random_uniform draws the reference's stream exactly", "[creation]") {
  int device = 0;
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64})
    for (uint64_t seed : {uint64_t{0}, uint64_t{42}, ~uint64_t{0}})
      for (const View &out : outputs(dtype)) {
        check_against_reference(BP_OP_RANDOM_UNIFORM, attrs_with(-2.0, 5.0, seed), {}, out, kExact,
                                std::string("uniform ") + dtype_name(dtype), device);
        device = 1 - device;
      }
  // And by value, from the shared header: element i is u(i) for low 0, high 1.
  const Bytes got = run_on(ocl(), 1, BP_OP_RANDOM_UNIFORM, attrs_with(0.0, 1.0, 7), {},
                           dense(BP_FLOAT64, {16}));
  for (int64_t i = 0; i < 16; ++i)
    CHECK(get<double>(got, i) == bp_random_unit_f64(7, static_cast<uint64_t>(i)));
}

TEST_CASE("random_normal is Box-Muller on the same stream", "[creation]") {
  for (int32_t dtype : {BP_FLOAT32, BP_FLOAT64}) {
    // cos and log are not exactly rounded: a few ulp.
    const Tolerance tol = table_tolerance(TestBound::opencl_normal, dtype);
    for (const View &out : outputs(dtype))
      check_against_reference(BP_OP_RANDOM_NORMAL, attrs_with(1.0, 2.0, 99), {}, out, tol,
                              std::string("normal ") + dtype_name(dtype));
  }
  CHECK_FALSE(supported(ocl(), BP_OP_RANDOM_NORMAL, BP_INT32, BP_INT32));
}
