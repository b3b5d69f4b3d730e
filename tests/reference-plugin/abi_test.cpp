// The reference plugin as the core sees it: the entry point, the table, the
// life cycle, devices, capabilities, and its thread-safety claims.
#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include "reference_test.hpp"
#include "scratch_dir.hpp"
#include "table_identity.hpp"

using namespace ref_test;

namespace {

// A private copy of the .so, loaded under another path: the dynamic loader
// treats it as a different library, so it starts with fresh globals (not
// initialised), whatever other tests in this process did.
class FreshCopy {
 public:
  FreshCopy() : path_(dir_.path() + "/libbackplane-reference.so") {
    std::ifstream src(bp_test::plugin_path("reference"), std::ios::binary);
    std::ofstream dst(path_, std::ios::binary);
    dst << src.rdbuf();
    dst.close();
    lib_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib_ != nullptr);
    get_ = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib_, BP_PLUGIN_ENTRY_SYMBOL));
    REQUIRE(get_ != nullptr);
  }
  ~FreshCopy() {
    if (lib_) dlclose(lib_);
  }
  bp_plugin_get_api_fn get() const { return get_; }

 private:
  const bp_test::ScratchDir dir_{"bp-reference-test"};
  const std::string path_;
  void *lib_ = nullptr;
  bp_plugin_get_api_fn get_ = nullptr;
};

}  // namespace

TEST_CASE("the entry point returns a complete 1.0 table", "[abi]") {
  Reference ref;
  const bp_plugin_api &api = ref.api();
  CHECK(api.struct_size == BP_PLUGIN_API_SIZE_1_4);
  bp_test::check_table_identity(api, "reference", "reference");
  CHECK((api.flags & BP_PLUGIN_THREAD_SAFE) != 0);
  CHECK(std::string(api.version).size() > 0);
  // Every entry, optional ones included, is implemented.
  CHECK(api.last_error != nullptr);
  CHECK(api.init != nullptr);
  CHECK(api.device_count != nullptr);
  CHECK(api.device_info != nullptr);
  CHECK(api.device_properties != nullptr);
  CHECK(api.alloc != nullptr);
  CHECK(api.free != nullptr);
  CHECK(api.write != nullptr);
  CHECK(api.read != nullptr);
  CHECK(api.copy != nullptr);
  CHECK(api.supports != nullptr);
  CHECK(api.execute != nullptr);
  CHECK(api.synchronize != nullptr);
  CHECK(api.host_address != nullptr);
  CHECK(api.execute_fused != nullptr);
  CHECK(api.wrap_host != nullptr);
}

TEST_CASE("the plugin exports only the entry symbol", "[abi]") {
  void *lib = dlopen(bp_test::plugin_path("reference").c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib != nullptr);
  CHECK(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL) != nullptr);
  // Internal functions stay hidden behind the version script.
  CHECK(dlsym(lib, "ref_execute") == nullptr);
  CHECK(dlsym(lib, "ref_fail") == nullptr);
  dlclose(lib);
}

TEST_CASE("a host with another ABI major is refused, any minor is accepted", "[abi]") {
  FreshCopy copy;
  CHECK(copy.get()(BP_PLUGIN_ABI_MAJOR + 1, 0) == nullptr);
  CHECK(copy.get()(0, 0) == nullptr);
  CHECK(copy.get()(UINT32_MAX, BP_PLUGIN_ABI_MINOR) == nullptr);
  CHECK(copy.get()(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) != nullptr);
  CHECK(copy.get()(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR + 7) != nullptr);
}

TEST_CASE("calls before init fail with BP_ERR_STATE", "[abi]") {
  FreshCopy copy;
  const bp_plugin_api *api = copy.get()(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  REQUIRE(api != nullptr);
  int32_t count = -1;
  const char *why = nullptr;
  CHECK(api->device_count(&count, &why) == BP_ERR_STATE);
  CHECK(std::string(api->last_error()).find("before init") != std::string::npos);
  bp_buffer b = nullptr;
  CHECK(api->alloc(0, 16, &b) == BP_ERR_STATE);
  CHECK(api->synchronize(0) == BP_ERR_STATE);

  REQUIRE(api->init(nullptr, nullptr, 0) == BP_OK);
  CHECK(api->device_count(&count, &why) == BP_OK);
  CHECK(count == 1);
  // A second init is harmless (plugin.h).
  CHECK(api->init(nullptr, nullptr, 0) == BP_OK);
}

TEST_CASE("init rejects options it does not know", "[abi]") {
  Reference ref;
  const char *keys[] = {"threads"};
  const char *values[] = {"4"};
  check_error(ref, ref.api().init(keys, values, 1), BP_ERR_CONFIG, {"threads", "no options"});
  check_error(ref, ref.api().init(nullptr, nullptr, -1), BP_ERR_INVALID_ARGUMENT);
  check_error(ref, ref.api().init(nullptr, values, 1), BP_ERR_INVALID_ARGUMENT);
  const char *null_key[] = {nullptr};
  check_error(ref, ref.api().init(null_key, values, 1), BP_ERR_INVALID_ARGUMENT);
  CHECK(ref.api().init(keys, values, 0) == BP_OK);
}

TEST_CASE("one CPU device named reference:0", "[abi][device]") {
  Reference ref;
  int32_t count = -1;
  const char *why = "sentinel";
  REQUIRE(ref.api().device_count(&count, &why) == BP_OK);
  CHECK(count == 1);
  CHECK(why == nullptr);

  bp_plugin_device_info info = blank_device_info();
  REQUIRE(ref.api().device_info(0, &info) == BP_OK);
  CHECK(info.kind == BP_DEVICE_CPU);
  CHECK(std::string(info.model) == "reference (naive C99)");
  CHECK(info.memory_total > 0);
  CHECK(info.memory_free <= info.memory_total);

  CHECK(ref.api().synchronize(0) == BP_OK);
}

TEST_CASE("memory_in_use follows alloc and free", "[abi][device]") {
  Reference ref;
  auto in_use = [&] {
    bp_plugin_device_info info = blank_device_info();
    REQUIRE(ref.api().device_info(0, &info) == BP_OK);
    return info.memory_in_use;
  };
  const uint64_t before = in_use();
  bp_buffer a = ref.plugin().alloc(0, 1000);
  bp_buffer b = ref.plugin().alloc(0, 24);
  CHECK(in_use() == before + 1024);
  REQUIRE(ref.api().free(a) == BP_OK);
  CHECK(in_use() == before + 24);
  REQUIRE(ref.api().free(b) == BP_OK);
  CHECK(in_use() == before);
}

TEST_CASE("device_info writes only the fields inside struct_size", "[abi][device]") {
  Reference ref;
  bp_plugin_device_info info;
  std::memset(&info, 0xAB, sizeof info);
  // An older core whose struct ends after `kind`.
  info.struct_size = offsetof(bp_plugin_device_info, model);
  REQUIRE(ref.api().device_info(0, &info) == BP_OK);
  CHECK(info.kind == BP_DEVICE_CPU);
  CHECK(static_cast<unsigned char>(info.model[0]) == 0xAB);
  CHECK(info.memory_in_use == 0xABABABABABABABABull);
}

TEST_CASE("device_properties honours capacity", "[abi][device]") {
  Reference ref;
  int32_t count = -1;
  REQUIRE(ref.api().device_properties(0, nullptr, 0, &count) == BP_OK);
  CHECK(count == 0);

  bp_property props[16];
  REQUIRE(ref.api().device_properties(0, props, 16, &count) == BP_OK);
  CHECK(count >= 2);
  std::set<std::string> keys;
  for (int i = 0; i < count; ++i) {
    CHECK(std::strlen(props[i].key) > 0);
    CHECK(std::strlen(props[i].value) > 0);
    keys.insert(props[i].key);
  }
  CHECK(keys.size() == static_cast<size_t>(count));
  CHECK(keys.count("implementation") == 1);

  bp_property one[1];
  REQUIRE(ref.api().device_properties(0, one, 1, &count) == BP_OK);
  CHECK(count == 1);
  CHECK(std::string(one[0].key) == props[0].key);
}

TEST_CASE("supports answers exactly the operators and dtypes of plugin.h", "[abi][supports]") {
  Reference ref;
  // The table written out independently of the plugin's code.
  // The dtypes of ABI 1.4: values 1..10, bool (5) the one non-numeric one.
  auto valid = [](int d) { return d >= BP_FLOAT32 && d <= BP_INT16; };
  auto numeric = [&](int d) { return valid(d) && d != BP_BOOL; };
  auto floating = [](int d) {
    return d == BP_FLOAT32 || d == BP_FLOAT64 || d == BP_FLOAT16 || d == BP_BFLOAT16;
  };
  auto expected = [&](int op, int in, int out) -> bool {
    if (!valid(in) || !valid(out)) return false;
    switch (op) {
      case BP_OP_ADD: case BP_OP_SUB: case BP_OP_MUL: case BP_OP_POW:
      case BP_OP_MAXIMUM: case BP_OP_MINIMUM: case BP_OP_NEG: case BP_OP_ABS:
      case BP_OP_RELU: case BP_OP_MATMUL: case BP_OP_MAX: case BP_OP_MIN: case BP_OP_ARANGE:
      case BP_OP_FLOOR_DIVIDE: case BP_OP_REMAINDER: case BP_OP_SQUARE: case BP_OP_FLOOR: case BP_OP_CEIL:
      case BP_OP_ROUND: case BP_OP_SIGN: case BP_OP_MAX_POOL:
        return numeric(in) && out == in;
      case BP_OP_DIV: case BP_OP_EXP: case BP_OP_LOG: case BP_OP_SQRT: case BP_OP_TANH:
      case BP_OP_SIGMOID: case BP_OP_MEAN: case BP_OP_NORM: case BP_OP_RANDOM_UNIFORM:
      case BP_OP_RANDOM_NORMAL: case BP_OP_SIN: case BP_OP_COS: case BP_OP_LOGSUMEXP: case BP_OP_ERF:
      case BP_OP_EXPM1: case BP_OP_LOG1P: case BP_OP_RSQRT: case BP_OP_SOFTMAX: case BP_OP_LOG_SOFTMAX:
      case BP_OP_AVG_POOL: case BP_OP_MAX_POOL_GRAD: case BP_OP_AVG_POOL_GRAD:
        return floating(in) && out == in;
      case BP_OP_ISNAN: case BP_OP_ISINF:
        return floating(in) && out == BP_BOOL;
      // Since 1.6: the variance and the normalisations (output 0, y).
      case BP_OP_VAR: case BP_OP_LAYER_NORM: case BP_OP_RMS_NORM:
        return floating(in) && out == in;
      case BP_OP_CONV: case BP_OP_CONV_TRANSPOSE: case BP_OP_CONV_WEIGHT_GRAD:  // since 1.6
        return floating(in) && out == in;
      case BP_OP_EQ: case BP_OP_NE: case BP_OP_LT: case BP_OP_LE: case BP_OP_GT: case BP_OP_GE:
        return out == BP_BOOL;
      case BP_OP_WHERE: case BP_OP_FILL:
        return out == in;
      case BP_OP_SUM:
        return floating(in) ? out == in : out == BP_INT64;
      case BP_OP_PROD:
        return numeric(in) && out == (floating(in) ? in : BP_INT64);
      case BP_OP_ARGMAX: case BP_OP_ARGMIN:
        return numeric(in) && out == BP_INT64;
      case BP_OP_BITWISE_AND: case BP_OP_BITWISE_OR: case BP_OP_BITWISE_XOR:
      case BP_OP_BITWISE_NOT:
        return !floating(in) && out == in;
      case BP_OP_CUMSUM:
        return floating(in) ? out == in : out == BP_INT64;
      case BP_OP_GATHER_ND: case BP_OP_SCATTER_ND:
        return out == in;
      case BP_OP_TOPK:  // values of the input's dtype (the indices are int64, output 1)
        return out == in;
      case BP_OP_SCATTER_ADD_ND:
        return numeric(in) && out == in;
      case BP_OP_COPY:
        return true;
      case BP_OP_ATTENTION:  // since 1.6
        return floating(in) && out == in;
      default:
        return false;
    }
  };
  for (int op = -1; op <= BP_OP_LIMIT + 2; ++op)
    for (int in = -1; in <= BP_DTYPE_COUNT; ++in)
      for (int out = -1; out <= BP_DTYPE_COUNT; ++out) {
        int32_t answer = -1;
        REQUIRE(ref.api().supports(0, op, in, out, &answer) == BP_OK);
        INFO("op " << op << " dtype " << in << " out_dtype " << out);
        CHECK(answer == (expected(op, in, out) ? 1 : 0));
      }
  // Spot checks of the expectation itself, read straight from plugin.h.
  struct Spot {
    int32_t op, in, out, answer;
  };
  const Spot spots[] = {
      {BP_OP_COPY, BP_BOOL, BP_FLOAT32, 1},
      {BP_OP_DIV, BP_INT32, BP_INT32, 0},
      {BP_OP_SUM, BP_BOOL, BP_INT64, 1},
      {BP_OP_SUM, BP_INT32, BP_INT32, 0},
      {BP_OP_WHERE, BP_BOOL, BP_BOOL, 1},
      {BP_OP_RANDOM_NORMAL, BP_INT64, BP_INT64, 0},
      {BP_OP_BITWISE_NOT, BP_BOOL, BP_BOOL, 1},
      {BP_OP_BITWISE_AND, BP_FLOAT32, BP_FLOAT32, 0},
      {BP_OP_CUMSUM, BP_BOOL, BP_INT64, 1},
      {BP_OP_SCATTER_ND, BP_INT32, BP_INT32, 1},
      {BP_OP_LOGSUMEXP, BP_INT32, BP_INT32, 0},
      {BP_OP_SCATTER_ADD_ND, BP_BOOL, BP_BOOL, 0},
      {BP_OP_SCATTER_ADD_ND, BP_INT64, BP_INT64, 1},
      // The 8- and 16-bit dtypes (since 1.4).
      {BP_OP_SUM, BP_INT8, BP_INT64, 1},
      {BP_OP_SUM, BP_INT16, BP_INT16, 0},
      {BP_OP_SUM, BP_FLOAT16, BP_FLOAT16, 1},
      {BP_OP_SUM, BP_BFLOAT16, BP_FLOAT32, 0},
      {BP_OP_DIV, BP_UINT8, BP_UINT8, 0},
      {BP_OP_MEAN, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_CUMSUM, BP_UINT8, BP_INT64, 1},
      {BP_OP_PROD, BP_INT16, BP_INT64, 1},
      {BP_OP_BITWISE_AND, BP_FLOAT16, BP_FLOAT16, 0},
      {BP_OP_BITWISE_NOT, BP_UINT8, BP_UINT8, 1},
      {BP_OP_COPY, BP_INT16, BP_BFLOAT16, 1},
      {BP_OP_COPY, BP_FLOAT16, BP_UINT8, 1},
      {BP_OP_RANDOM_UNIFORM, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_RANDOM_NORMAL, BP_INT8, BP_INT8, 0},
      {BP_OP_ARANGE, BP_INT8, BP_INT8, 1},
      {BP_OP_MATMUL, BP_UINT8, BP_UINT8, 1},
      {BP_OP_ARGMAX, BP_FLOAT16, BP_INT64, 1},
      {BP_OP_EQ, BP_BFLOAT16, BP_BOOL, 1},
      {BP_OP_LOGSUMEXP, BP_INT16, BP_INT16, 0},
      {BP_OP_SCATTER_ADD_ND, BP_BFLOAT16, BP_BFLOAT16, 1},
      // TOPK (since 1.6): every dtype, asked with output 0's (the values').
      {BP_OP_TOPK, BP_BOOL, BP_BOOL, 1},
      {BP_OP_TOPK, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_TOPK, BP_FLOAT32, BP_INT64, 0},
      // Since 1.6.
      {BP_OP_VAR, BP_FLOAT16, BP_FLOAT16, 1},
      {BP_OP_VAR, BP_INT32, BP_INT32, 0},
      {BP_OP_LAYER_NORM, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_RMS_NORM, BP_FLOAT32, BP_FLOAT64, 0},
      // ATTENTION (since 1.6).
      {BP_OP_ATTENTION, BP_FLOAT16, BP_FLOAT16, 1},
      {BP_OP_ATTENTION, BP_FLOAT32, BP_FLOAT64, 0},
      {BP_OP_ATTENTION, BP_INT32, BP_INT32, 0},
      // The operators of 1.6.
      {BP_OP_ISNAN, BP_FLOAT16, BP_BOOL, 1},
      {BP_OP_ISNAN, BP_FLOAT32, BP_FLOAT32, 0},
      {BP_OP_ISINF, BP_INT32, BP_BOOL, 0},
      {BP_OP_SOFTMAX, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_LOG_SOFTMAX, BP_FLOAT64, BP_FLOAT32, 0},
      {BP_OP_SOFTMAX, BP_INT64, BP_INT64, 0},
      // Pooling (since 1.6): max on every numeric dtype, the rest on floats.
      {BP_OP_MAX_POOL, BP_UINT8, BP_UINT8, 1},
      {BP_OP_MAX_POOL, BP_BOOL, BP_BOOL, 0},
      {BP_OP_AVG_POOL, BP_INT32, BP_INT32, 0},
      {BP_OP_AVG_POOL, BP_FLOAT16, BP_FLOAT16, 1},
      {BP_OP_MAX_POOL_GRAD, BP_BFLOAT16, BP_BFLOAT16, 1},
      {BP_OP_AVG_POOL_GRAD, BP_INT64, BP_INT64, 0},
  };
  for (const Spot &s : spots) {
    int32_t answer = 0;
    REQUIRE(ref.api().supports(0, s.op, s.in, s.out, &answer) == BP_OK);
    INFO("op " << s.op << " dtype " << s.in << " out_dtype " << s.out);
    CHECK(answer == s.answer);
  }
}

TEST_CASE("last_error is kept per thread", "[abi][threads]") {
  Reference ref;
  std::string first, second;
  std::thread a([&] {
    ref.api().device_info(7, nullptr);  // fails: no device 7
    std::thread b([&] {
      ref.api().synchronize(9);  // fails on another thread
      second = ref.api().last_error();
    });
    b.join();
    first = ref.api().last_error();  // still this thread's own failure
  });
  a.join();
  CHECK(first.find("reference:7") != std::string::npos);
  CHECK(second.find("reference:9") != std::string::npos);
}

TEST_CASE("alloc and free from many threads keep memory_in_use exact", "[abi][threads]") {
  Reference ref;
  auto in_use = [&] {
    bp_plugin_device_info info = blank_device_info();
    ref.api().device_info(0, &info);
    return info.memory_in_use;
  };
  const uint64_t before = in_use();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        bp_buffer b = nullptr;
        if (ref.api().alloc(0, 64 + t, &b) != BP_OK) ++failures[t];
        if (ref.api().free(b) != BP_OK) ++failures[t];
      }
    });
  for (auto &t : threads) t.join();
  CHECK(failures == std::vector<int>(4, 0));
  CHECK(in_use() == before);
}
