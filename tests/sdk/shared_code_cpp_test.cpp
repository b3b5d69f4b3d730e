// shared_code_cpp_test.cpp — the C++ pieces the SDK gives every backend
// (since 1.4): dispatch_set over the vocabulary's dtype sets, LiveBuffers,
// UniqueHandle and require_fused_supported. Prints every failed check and
// exits 1 if there was one.
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "backplane/plugin_sdk.hpp"
#include "backplane/sdk/live_buffers.hpp"
#include "backplane/sdk/unique_handle.hpp"

namespace {

int g_failed = 0, g_checks = 0;

#define CHECK(cond)                                        \
  do {                                                     \
    ++g_checks;                                            \
    if (!(cond)) {                                         \
      ++g_failed;                                          \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
    }                                                      \
  } while (0)

// The status and message of what `body` throws (BP_OK: nothing).
template <class Body>
bp_status status_of(Body &&body, std::string *message = nullptr) {
  try {
    body();
    return BP_OK;
  } catch (const bp_plugin::Error &e) {
    if (message) *message = e.what();
    return e.status();
  }
}

// For each set, every dtype of the vocabulary dispatches exactly when it is
// in the set, to the C++ type whose dtype_of it is.
template <int32_t set>
void dispatch_follows_the_vocabulary() {
  for (int32_t dtype = 1; dtype < BP_DTYPE_COUNT; ++dtype) {
    int32_t seen = 0;
    const bp_status s = status_of([&] {
      bp_plugin::dispatch_set<set>(dtype, [&](auto tag) {
        seen = bp_plugin::dtype_of<typename decltype(tag)::type>::value;
      });
    });
    if (bp_vocab_dtype_in_set(dtype, set)) CHECK(s == BP_OK && seen == dtype);
    else CHECK(s == BP_ERR_INTERNAL && seen == 0);
  }
}

struct Buffer {
  uint64_t size;
};

int g_released = 0;
struct CountRelease {
  void operator()(int *) const { ++g_released; }
};

}  // namespace

int main() {
  dispatch_follows_the_vocabulary<BP_DTYPE_SET_FLOAT>();
  dispatch_follows_the_vocabulary<BP_DTYPE_SET_NUMERIC>();
  dispatch_follows_the_vocabulary<BP_DTYPE_SET_ALL>();
  dispatch_follows_the_vocabulary<BP_DTYPE_SET_INTEGRAL>();
  CHECK(status_of([] { bp_plugin::dispatch_set<BP_DTYPE_SET_ALL>(99, [](auto) {}); }) == BP_ERR_INTERNAL);
  static_assert(std::is_same<BP_SDK_CPP_TYPE_BOOL, bp_plugin::dtypes::boolean>::value, "one type, two names");

  {
    bp_plugin::LiveBuffers<Buffer> live("test", "test: ");
    Buffer a{64}, b{8};
    live.insert(&a);
    uint64_t bytes = 0;
    CHECK(live.size() == 1);
    CHECK(live.bytes(&a, &bytes, [](const Buffer &x) { return x.size; }) == 1 && bytes == 64);
    CHECK(live.bytes(&b, &bytes, [](const Buffer &x) { return x.size; }) == 0);
    CHECK(&live.checked(&a, "write", "dst") == &a);
    std::string message;
    CHECK(status_of([&] { live.checked(&b, "write", "dst"); }, &message) == BP_ERR_INVALID_ARGUMENT);
    CHECK(message == "test: write: dst is not a live buffer of the test backend (freed, or made by another plugin?)");
    CHECK(status_of([&] { live.checked(nullptr, "read", "src"); }, &message) == BP_ERR_INVALID_ARGUMENT);
    CHECK(message == "test: read: src is NULL");
    CHECK(&live.take(&a, "free", "buffer") == &a);
    CHECK(live.size() == 0);
    CHECK(status_of([&] { live.take(&a, "free", "buffer"); }) == BP_ERR_INVALID_ARGUMENT);  // freed twice
  }

  {
    int x = 0, y = 0;
    {
      bp_plugin::UniqueHandle<int *, CountRelease> none, owned(&x), handed(&y);
      CHECK(owned.get() == &x && none.get() == nullptr);
      CHECK(handed.release() == &y && handed.get() == nullptr);
      *none.ptr() = &y;  // as a creating C function writes it
      CHECK(none.get() == &y);
    }
    CHECK(g_released == 2);  // owned and the one written through ptr(), not the handed one
  }

  {
    bp_fused_instr instrs[2];
    std::memset(instrs, 0, sizeof instrs);
    instrs[0].op = BP_OP_ADD;
    instrs[1].op = BP_OP_EXP;
    instrs[0].dtype = instrs[0].out_dtype = instrs[1].dtype = instrs[1].out_dtype = BP_FLOAT32;
    bp_fused_program p;
    std::memset(&p, 0, sizeof p);
    p.n_instrs = 2;
    p.instrs = instrs;
    std::string message;
    const auto only_add = [](int32_t op, int32_t, int32_t) { return op == BP_OP_ADD; };
    CHECK(status_of([&] { bp_plugin::require_fused_supported(p, "test:0", only_add); }, &message) ==
          BP_ERR_UNSUPPORTED);
    CHECK(message == "fused instruction 1 (exp): test:0 does not implement float32 -> float32");
    p.n_instrs = 1;
    CHECK(status_of([&] { bp_plugin::require_fused_supported(p, "test:0", only_add); }) == BP_OK);
  }

  std::printf("%d passed, %d failed\n", g_checks - g_failed, g_failed);
  return g_failed ? 1 : 0;
}
