// The im2col + OpenBLAS convolutions (plugins/cpu-openblas/conv_gemm.cpp,
// compiled into this test) on the kit's dense problems, against the
// reference plugin: in a build with oneDNN the backend sends float32 there
// only when oneDNN declines, so the path is tested here directly (the
// sanitizer builds, without oneDNN, run it for everything).
#include <cstring>

#include "backplane/sdk/conv.h"
#include "conv_cases.hpp"
#include "conv_gemm.hpp"
#include "plugin.hpp"
#include "case_runner.hpp"
#include "judge.hpp"
#include "plugin_harness.hpp"

using namespace bp_test;

namespace {

bool dense(const bpcheck::ViewDesc &v) {
  if (bpcheck::is_absent(v)) return true;
  int64_t stride = 1;
  for (int d = v.rank - 1; d >= 0; --d) {
    if (v.shape[d] > 1 && v.strides[d] != stride) return false;
    stride *= v.shape[d];
  }
  return true;
}

bp_plugin_tensor geometry(const bpcheck::ViewDesc &v) {
  bp_plugin_tensor t{};
  t.dtype = v.dtype, t.rank = v.rank;
  for (int d = 0; d < v.rank; ++d) t.shape[d] = v.shape[d], t.strides[d] = v.strides[d];
  return t;
}

template <class T>
void run_gemm(cpu_backend::ThreadPool &pool, const bpcheck::Case &c, std::vector<uint8_t> &out) {
  const bp_plugin_tensor in[3] = {geometry(c.inputs[0]), geometry(c.inputs[1]), geometry(c.inputs[2])};
  const bp_plugin_tensor o = geometry(c.output);
  bp_sdk_conv g;
  char message[512];
  REQUIRE(bp_sdk_conv_geometry(c.op, &*c.window, in, &o, &g, message, sizeof message) == BP_OK);
  auto data = [&](const bpcheck::ViewDesc &v) {
    return bpcheck::is_absent(v) ? nullptr
                                 : reinterpret_cast<const T *>(c.storages[size_t(v.storage)].data() + v.offset);
  };
  T *y = reinterpret_cast<T *>(out.data() + c.output.offset);
  if (c.op == BP_OP_CONV)
    cpu_backend::gemm_conv_forward(pool, g, data(c.inputs[0]), data(c.inputs[1]), data(c.inputs[2]), y);
  else if (c.op == BP_OP_CONV_TRANSPOSE)
    cpu_backend::gemm_conv_backward_data(pool, g, data(c.inputs[0]), data(c.inputs[1]), data(c.inputs[2]), y);
  else
    cpu_backend::gemm_conv_backward_weights(pool, g, data(c.inputs[0]), data(c.inputs[1]), y);
}

}  // namespace

TEST_CASE("cpu: the im2col + OpenBLAS convolutions agree with the reference") {
  auto ref = bpcheck::Plugin::borrow(reference().api());
  for (int threads : {1, 3}) {
    cpu_backend::ThreadPool pool(threads);
    int checked = 0;
    for (bp_op op : ops_in(BP_OP_FAMILY_CONV))
      for (bp_dtype dtype : {BP_FLOAT32, BP_FLOAT64})
        for (const bpcheck::Case &c : bpcheck::random_conv_cases(op, dtype, 900 + uint64_t(op), 40)) {
          if (!dense(c.inputs[0]) || !dense(c.inputs[1]) || !dense(c.output)) continue;
          INFO(op_name(op) << " " << dtype_name(dtype) << " on " << threads << " threads, case " << c.label);
          const bpcheck::Outcome want = bpcheck::run_case(*ref, 0, c);
          REQUIRE(want.ok);
          std::vector<uint8_t> got = c.storages[size_t(c.output.storage)];
          if (dtype == BP_FLOAT32)
            run_gemm<float>(pool, c, got);
          else
            run_gemm<double>(pool, c, got);
          CHECK(bpcheck::compare_outputs(c, got, want.storages[size_t(c.output.storage)]) == "");
          ++checked;
        }
    CHECK(checked > 100);
  }
}
