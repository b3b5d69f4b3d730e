// bp_index, bp_index_put and bp_index_put_into through the C API and the
// C++ header on every host device and OpenCL: NumPy's placement rules,
// views against copies, accumulate with repeated positions, and every
// malformed key answered with a status and a message, never a crash or a
// leaked tensor. tests/python/test_index_api.py compares many random keys
// with NumPy; the gradients are in test_autograd.cpp.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

namespace {


// 0..59 as int64 [3, 4, 5], NumPy's np.arange(60).reshape(3, 4, 5).
bp::Tensor counting(const bp::Device &d) {
  std::vector<int64_t> v(60);
  for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(i);
  return bp::from_vector<int64_t>(v, {3, 4, 5}, d);
}

bp_index_key tensor_key(bp_tensor t) {
  bp_index_key k{};
  k.kind = BP_INDEX_TENSOR;
  k.tensor = t;
  return k;
}

}  // namespace

TEST_CASE("bp_index places the advanced indices as NumPy does") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const bp::Tensor x = counting(d);
  const bp::Tensor i = bp::from_vector<int64_t>({2, 0}, {2}, d);
  // x[1, ::-2]: basic, a copy walking backwards.
  const bp::Tensor back = x.index({1, bp::Slice{std::nullopt, std::nullopt, -2}});
  CHECK(back.shape() == bp::Shape{2, 5});
  CHECK(back.to_vector<int64_t>() == std::vector<int64_t>{35, 36, 37, 38, 39, 25, 26, 27, 28, 29});
  // x[:, i, i]: adjacent advanced indices stay in place -> [3, 2].
  const bp::Tensor adjacent = x.index({bp::Slice{}, i, i});
  CHECK(adjacent.shape() == bp::Shape{3, 2});
  CHECK(adjacent.to_vector<int64_t>() == std::vector<int64_t>{12, 0, 32, 20, 52, 40});
  // x[i, :, i]: separated by a slice, the broadcast axis goes first -> [2, 4].
  const bp::Tensor apart = x.index({i, bp::Slice{}, i});
  CHECK(apart.shape() == bp::Shape{2, 4});
  CHECK(apart.to_vector<int64_t>() == std::vector<int64_t>{42, 47, 52, 57, 0, 5, 10, 15});
  // x[..., None, 1]: an integer after an ellipsis, a new axis -> [3, 4, 1].
  const bp::Tensor tail = x.index({bp::ellipsis, bp::newaxis, 1});
  CHECK(tail.shape() == bp::Shape{3, 4, 1});
  CHECK(tail.to_vector<int64_t>()[5] == 26);
  // A mask over the first two axes stands for its nonzero positions.
  std::vector<bool> m(12, false);
  m[1] = m[6] = true;
  const bp::Tensor masked = x.index({bp::from_vector<bool>(m, {3, 4}, d)});
  CHECK(masked.shape() == bp::Shape{2, 5});
  CHECK(masked.to_vector<int64_t>() == std::vector<int64_t>{5, 6, 7, 8, 9, 30, 31, 32, 33, 34});
}

TEST_CASE("bp_index of a basic key is a view, and index_put_ writes through views and masks") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  const bp::Tensor x = counting(d);
  const bp::Tensor row = x.index({2, bp::Slice{1, 3}});
  row.assign(bp::full({}, -1.0, BP_INT64, d));
  CHECK(x.index({2, 1, 0}).item<int64_t>() == -1);
  const bp::Tensor everything = x.index({});
  CHECK(everything.handle() != x.handle());
  CHECK(everything.shape() == x.shape());
  // Repeated positions: the last-or-any value without accumulate, all of
  // them with it (np.add.at).
  const bp::Tensor v = bp::zeros({4}, BP_INT64, d);
  const bp::Tensor twice = bp::from_vector<int64_t>({1, 1, 3}, {3}, d);
  v.index_put_({twice}, bp::from_vector<int64_t>({5, 7, 2}, {3}, d), true);
  CHECK(v.to_vector<int64_t>() == std::vector<int64_t>{0, 12, 0, 2});
  v.index_put_({bp::Slice{std::nullopt, std::nullopt, -1}}, bp::from_vector<int64_t>({1, 2, 3, 4}, {4}, d));
  CHECK(v.to_vector<int64_t>() == std::vector<int64_t>{4, 3, 2, 1});
  // index_put leaves its input alone; values broadcast along the key's shape.
  const bp::Tensor put = v.index_put({bp::from_vector<bool>({true, false, true, false}, {4}, d)},
                                     bp::full({}, 9.0, BP_INT64, d));
  CHECK(put.to_vector<int64_t>() == std::vector<int64_t>{9, 3, 9, 1});
  CHECK(v.to_vector<int64_t>() == std::vector<int64_t>{4, 3, 2, 1});
  // values may be the destination itself: read before anything is written.
  v.index_put_({bp::Slice{std::nullopt, std::nullopt, -1}}, v);
  CHECK(v.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 4});
}

TEST_CASE("malformed keys get a status naming what is wrong") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = counting(d);
  bp_tensor out = BP_NO_TENSOR;
  bp_index_key k[3] = {};
  CHECK(bp_index(x.handle(), nullptr, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("keys is NULL"));
  CHECK(bp_index(x.handle(), k, -1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_index(x.handle(), k, 0, nullptr) == BP_ERR_INVALID_ARGUMENT);
  k[0].kind = 9;
  CHECK(bp_index(x.handle(), k, 1, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("key 0"));
  CHECK(bp_index(BP_NO_TENSOR, k, 0, &out) == BP_ERR_INVALID_HANDLE);
  k[0] = tensor_key(BP_NO_TENSOR);
  CHECK(bp_index(x.handle(), k, 1, &out) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_test::last_error_mentions("key 0"));
  k[0] = bp_index_key{};
  k[0].kind = BP_INDEX_INT;
  k[1].kind = BP_INDEX_INT;
  k[1].index = -5;
  CHECK(bp_index(x.handle(), k, 2, &out) == BP_ERR_INDEX);
  CHECK(bp_test::last_error_mentions("axis 1 with size 4"));
  k[1].index = 0;
  k[2].kind = BP_INDEX_SLICE;
  k[2].given = BP_INDEX_HAS_STEP;
  k[2].step = 0;
  CHECK(bp_index(x.handle(), k, 3, &out) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("step"));
  const bp_index_key four[4] = {k[0], k[0], k[0], k[0]};
  CHECK(bp_index(x.handle(), four, 4, &out) == BP_ERR_INDEX);
  CHECK(bp_test::last_error_mentions("too many indices"));
  bp_index_key dots[2] = {};
  dots[0].kind = dots[1].kind = BP_INDEX_ELLIPSIS;
  CHECK(bp_index(x.handle(), dots, 2, &out) == BP_ERR_INDEX);
  const bp::Tensor floats = bp::from_vector<float>({0, 1}, {2}, d);
  k[0] = tensor_key(floats.handle());
  CHECK(bp_index(x.handle(), k, 1, &out) == BP_ERR_INDEX);
  CHECK(bp_test::last_error_mentions("float32"));
  const bp::Tensor mask = bp::from_vector<bool>({true, false}, {2}, d);
  k[0] = tensor_key(mask.handle());
  CHECK(bp_index(x.handle(), k, 1, &out) == BP_ERR_INDEX);
  CHECK(bp_test::last_error_mentions("boolean index of shape (2,)"));
  const bp::Tensor far = bp::from_vector<int64_t>({0, 3}, {2}, d);
  k[0] = tensor_key(far.handle());
  CHECK(bp_index(x.handle(), k, 1, &out) == BP_ERR_INDEX);
  const bp::Tensor two = bp::from_vector<int64_t>({0, 1}, {2}, d), three = bp::from_vector<int64_t>({0, 1, 2}, {3}, d);
  const bp_index_key mismatched[2] = {tensor_key(two.handle()), tensor_key(three.handle())};
  CHECK(bp_index(x.handle(), mismatched, 2, &out) == BP_ERR_INDEX);
  CHECK(bp_test::last_error_mentions("broadcast"));
  // Puts: values that do not broadcast, adding into bool, writing what
  // needs a gradient.
  k[0] = tensor_key(two.handle());
  CHECK(bp_index_put(x.handle(), k, 1, three.handle(), 0, &out) == BP_ERR_SHAPE);
  const bp::Tensor flags = bp::from_vector<bool>({true, false, true}, {3}, d);
  CHECK(bp_index_put_into(flags.handle(), k, 1, flags.handle(), 1) == BP_ERR_DTYPE);
  const bp::Tensor leaf = bp::zeros({3}, BP_FLOAT64, d).requires_grad_();
  CHECK(bp_index_put_into(leaf.handle(), k, 1, leaf.handle(), 0) == BP_ERR_STATE);
  CHECK(bp_index_put_into(x.handle(), k, 1, BP_NO_TENSOR, 0) == BP_ERR_INVALID_HANDLE);
}

TEST_CASE("random keys, well formed or not, never crash and never leak a tensor") {
  const bp::Device d = bp_test::each_host_device();
  const bp::Tensor x = counting(d);
  const std::vector<bp::Tensor> pool = {
      bp::from_vector<int64_t>({0, -1, 2}, {3}, d), bp::from_vector<int32_t>({7}, {1}, d),
      bp::from_vector<bool>({true, false, true}, {3}, d), bp::from_vector<bool>({true}, {}, d),
      bp::from_vector<float>({0.5}, {1}, d), bp::from_vector<int64_t>({1, 0, 1, 0}, {2, 2}, d)};
  const int64_t before = bp_live_tensor_count();
  std::mt19937 rng(27);
  int succeeded = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<bp_index_key> keys(rng() % 6);
    for (bp_index_key &k : keys) {
      k.kind = int32_t(rng() % 7);  // 0 and 6 are no kind
      k.given = uint32_t(rng() % 8);
      const int64_t values[] = {0, 1, -1, 3, -4, 5, INT64_MIN, INT64_MAX};
      k.index = values[rng() % 8];
      k.start = values[rng() % 8];
      k.stop = values[rng() % 8];
      k.step = values[rng() % 8];
      k.tensor = rng() % 8 == 0 ? bp_tensor(12345) : pool[rng() % pool.size()].handle();
    }
    bp_tensor out = BP_NO_TENSOR;
    const bp_status st = bp_index(x.handle(), keys.data(), int32_t(keys.size()), &out);
    if (st == BP_OK) {
      ++succeeded;
      bp_tensor_release(out);
    } else {
      CHECK(std::string(bp_last_error()).rfind("bp_index: ", 0) == 0);
    }
  }
  CHECK(succeeded > 0);
  CHECK(bp_live_tensor_count() == before);
}
