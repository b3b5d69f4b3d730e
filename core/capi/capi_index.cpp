// bp_index, bp_index_put and bp_index_put_into: the key array checked and
// its tensors looked up here; the indexing itself is in
// composites/index_composite.cpp.
#include <string>
#include <vector>

#include "autograd/functions.hpp"
#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/tensor_arg.hpp"
#include "composites/index_composite.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;

namespace {

std::vector<IndexKey> keys_of(const char *fn, const bp_index_key *keys, int32_t count) {
  if (count < 0) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": count is negative (" + std::to_string(count) + ")");
  if (count > 0 && !keys) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": keys is NULL");
  std::vector<IndexKey> out(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    const bp_index_key &k = keys[i];
    IndexKey &o = out[size_t(i)];
    if (k.kind < BP_INDEX_INT || k.kind > BP_INDEX_TENSOR)
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": key " + std::to_string(i) + " has kind " +
                                        std::to_string(k.kind) + ", which is no bp_index_kind (1 to 5)");
    o.kind = k.kind;
    o.given = k.given;
    o.index = k.index;
    o.start = k.start;
    o.stop = k.stop;
    o.step = k.step;
    if (k.kind == BP_INDEX_TENSOR) o.tensor = &tensor_arg(fn, k.tensor, "the tensor of key " + std::to_string(i));
  }
  return out;
}

// The names the core's errors start with, replaced by the C function's.
constexpr std::initializer_list<const char *> kInternal = {"index", "gather_nd", "scatter_nd", "scatter_add_nd",
                                                          "assign", "nonzero", "copy"};

}  // namespace

extern "C" {

bp_status bp_index(bp_tensor a, const bp_index_key *keys, int32_t count, bp_tensor *out) {
  return guarded([&] {
    as_function("bp_index", kInternal, [&] {
      bp_tensor &o = require(out, "bp_index", "out");
      const View &x = tensor_arg("bp_index", a, "a");
      o = handles().insert(index(x, keys_of("bp_index", keys, count)));
    });
  });
}

bp_status bp_index_put(bp_tensor a, const bp_index_key *keys, int32_t count, bp_tensor values,
                       int32_t accumulate, bp_tensor *out) {
  return guarded([&] {
    as_function("bp_index_put", kInternal, [&] {
      bp_tensor &o = require(out, "bp_index_put", "out");
      const View &x = tensor_arg("bp_index_put", a, "a");
      const View &v = tensor_arg("bp_index_put", values, "values");
      o = handles().insert(index_put(x, keys_of("bp_index_put", keys, count), v, accumulate != 0));
    });
  });
}

bp_status bp_index_put_into(bp_tensor dst, const bp_index_key *keys, int32_t count, bp_tensor values,
                            int32_t accumulate) {
  return guarded([&] {
    as_function("bp_index_put_into", kInternal, [&] {
      const View &d = tensor_arg("bp_index_put_into", dst, "dst");
      const View &v = tensor_arg("bp_index_put_into", values, "values");
      const std::vector<IndexKey> k = keys_of("bp_index_put_into", keys, count);
      autograd::before_write("bp_index_put_into", d, {&v});
      index_put_into(d, k, v, accumulate != 0);
      autograd::wrote(d);
    });
  });
}

}  // extern "C"
