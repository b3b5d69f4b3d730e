// The CUDA plugin on any machine: it loads, exports its table, starts, and
// either lists its devices or reports zero with the reason (on a machine
// without a GPU or driver: the CUDA error). Calls that need a device are
// answered with errors, never a crash.
#include <dlfcn.h>

#include <string>

#include "cuda_test.hpp"
#include "table_identity.hpp"

using namespace cuda_test;

namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("cuda: the plugin loads and exports a version 1 table", "[cuda][plugin]") {
  bp_test::PluginHandle plugin(kPlugin);
  const bp_plugin_api &api = plugin.api();
  bp_test::check_table_identity(api, "cuda", "cuda");
  CHECK(std::string(api.version).size() > 0);
  CHECK((api.flags & BP_PLUGIN_THREAD_SAFE) != 0);
  CHECK(api.copy != nullptr);
  CHECK(api.device_properties != nullptr);
  CHECK(api.host_address == nullptr);  // device memory has no host address

  // Another major version is refused (NULL), not half-served.
  void *lib = dlopen(bp_test::plugin_path(kPlugin).c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib != nullptr);
  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  REQUIRE(get != nullptr);
  CHECK(get(BP_PLUGIN_ABI_MAJOR + 1, 0) == nullptr);
  CHECK(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR + 7) == &api);
  dlclose(lib);
}

TEST_CASE("cuda: init succeeds and device_count gives devices or the reason", "[cuda][plugin]") {
  bp_test::PluginHandle plugin(kPlugin);  // init inside; throws on failure
  int32_t count = -1;
  const char *why = "unset";
  REQUIRE(plugin.api().device_count(&count, &why) == BP_OK);
  CHECK(count >= 0);
  if (count > 0) {
    CHECK(why == nullptr);
    return;
  }
  REQUIRE(why != nullptr);
  const std::string reason = why;
  INFO("why_none: " << reason);
  // "<cudaErrorName>: <description>", e.g. cudaErrorInsufficientDriver
  // without a driver, cudaErrorNoDevice with a driver but no GPU.
  CHECK((reason.rfind("cudaError", 0) == 0 || contains(reason, "no CUDA device")));
  WARN("no CUDA device here: " << reason);
  // Asked again, the same answer (the plugin enumerates once).
  const char *again = nullptr;
  int32_t count_again = -1;
  REQUIRE(plugin.api().device_count(&count_again, &again) == BP_OK);
  CHECK(count_again == 0);
  CHECK(std::string(again) == reason);
}

TEST_CASE("cuda: init takes allow_tf32 and rejects anything else", "[cuda][plugin]") {
  bp_test::PluginHandle plugin(kPlugin, {{"allow_tf32", "true"}});
  const bp_plugin_api &api = plugin.api();
  const char *keys[] = {"allow_tf32"};
  const char *no[] = {"false"};
  CHECK(api.init(keys, no, 1) == BP_OK);
  const char *bad_value[] = {"yes"};
  check_error(api, api.init(keys, bad_value, 1), BP_ERR_CONFIG, {"allow_tf32", "yes"});
  const char *other[] = {"threads"};
  const char *four[] = {"4"};
  check_error(api, api.init(other, four, 1), BP_ERR_CONFIG, {"threads"});
  check_error(api, api.init(nullptr, nullptr, 1), BP_ERR_INVALID_ARGUMENT);
  CHECK(api.init(nullptr, nullptr, 0) == BP_OK);  // and it is started again
}

TEST_CASE("cuda: a device that does not exist is an error naming it", "[cuda][plugin]") {
  bp_test::PluginHandle plugin(kPlugin);
  const bp_plugin_api &api = plugin.api();
  const Devices d = devices(plugin);
  const int32_t missing = d.count;  // one past the last device
  const std::string name = "cuda:" + std::to_string(missing);
  // Without devices the message also says why there are none.
  std::vector<std::string> words = {name};
  if (d.count == 0) words.push_back(d.why_none);

  bp_plugin_device_info info = blank_device_info();
  check_error(api, api.device_info(missing, &info), BP_ERR_UNKNOWN_DEVICE, words);
  bp_property props[4];
  int32_t n = 0;
  check_error(api, api.device_properties(missing, props, 4, &n), BP_ERR_UNKNOWN_DEVICE, words);
  bp_buffer buffer = nullptr;
  check_error(api, api.alloc(missing, 64, &buffer), BP_ERR_UNKNOWN_DEVICE, words);
  CHECK(buffer == nullptr);
  check_error(api, api.alloc(-1, 64, &buffer), BP_ERR_UNKNOWN_DEVICE, {"cuda:-1"});
  int32_t answer = -1;
  check_error(api, api.supports(missing, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &answer), BP_ERR_UNKNOWN_DEVICE, words);
  check_error(api, api.synchronize(missing), BP_ERR_UNKNOWN_DEVICE, words);
  const bp_op_attrs attrs = bp_test::default_attrs();
  const bp_plugin_tensor out = bp_test::dense_view(nullptr, BP_FLOAT32, {0});
  check_error(api, api.execute(missing, BP_OP_FILL, &attrs, nullptr, 0, &out), BP_ERR_UNKNOWN_DEVICE, words);
}

TEST_CASE("cuda: bad handles and NULL pointers are errors, not crashes", "[cuda][plugin]") {
  bp_test::PluginHandle plugin(kPlugin);
  const bp_plugin_api &api = plugin.api();
  check_error(api, api.device_count(nullptr, nullptr), BP_ERR_INVALID_ARGUMENT, {"count"});
  check_error(api, api.free(nullptr), BP_ERR_INVALID_ARGUMENT);
  // An address the plugin never handed out is looked up, never dereferenced.
  bp_plugin_tensor not_a_buffer;
  const bp_buffer forged = reinterpret_cast<bp_buffer>(&not_a_buffer);
  check_error(api, api.free(forged), BP_ERR_INVALID_ARGUMENT, {"not a live buffer"});
  char host[16] = {};
  check_error(api, api.write(nullptr, 0, host, sizeof host), BP_ERR_INVALID_ARGUMENT);
  check_error(api, api.read(forged, 0, host, sizeof host), BP_ERR_INVALID_ARGUMENT, {"not a live buffer"});
  check_error(api, api.copy(forged, 0, forged, 0, 4), BP_ERR_INVALID_ARGUMENT);
  check_error(api, api.alloc(0, 16, nullptr), BP_ERR_INVALID_ARGUMENT, {"out"});
}
