// L3 borrowed host memory: the optional wrap_host entry (since 1.4). The kit
// owns a block with guard bytes on both sides of the span it lends; through
// the buffer it checks that read() sees the owner's bytes, that write() and
// an operator (FILL or ADD float32, when declared) land in them, that
// host_address gives the lent address, and that free() frees none of it:
// the guards stay intact and release(context) comes exactly once, with the
// kit's context, never before free. A call that fails must never release.
// A plugin without the entry skips the group.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "groups.hpp"
#include "text.hpp"

namespace bpcheck {

namespace {

constexpr size_t kGuard = 64;             // bytes on each side of the lent span
constexpr size_t kElements = 257;         // float32s lent: not a multiple of any vector width
constexpr size_t kSpan = kElements * 4;
constexpr uint8_t kGuardByte = 0xA5;

// What release saw. It may run on any thread, so everything is atomic.
struct ReleaseLog {
  std::atomic<int> calls{0};
  std::atomic<bool> free_called{false};
  std::atomic<bool> before_free{false};
};

// Every log the kit has given as a context, kept for the life of the
// process, so a late release of an earlier buffer still finds its own;
// release looks the context up before trusting it, so a wrong context is
// reported, not dereferenced.
std::mutex g_logs_mutex;
std::vector<std::unique_ptr<ReleaseLog>> g_logs;
std::atomic<bool> g_wrong_context{false};

ReleaseLog &new_log() {
  std::lock_guard<std::mutex> lock(g_logs_mutex);
  g_logs.push_back(std::make_unique<ReleaseLog>());
  g_wrong_context.store(false);
  return *g_logs.back();
}

void record_release(void *context) {
  ReleaseLog *log = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_logs_mutex);
    for (const auto &known : g_logs)
      if (known.get() == context) log = known.get();
  }
  if (!log) {
    g_wrong_context.store(true);
    return;
  }
  if (!log->free_called.load()) log->before_free.store(true);
  log->calls.fetch_add(1);
}

// Given as release to calls that must fail: any call at all is wrong.
ReleaseLog g_refused;
void record_refused(void *) { g_refused.calls.fetch_add(1); }

// Waits (up to a few seconds) for release to have come `calls` times, since
// it may follow free once pending work is done, on another thread.
int wait_for_release(Plugin &p, int32_t device, const ReleaseLog &log, int calls) {
  p.synchronize(device);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (log.calls.load() < calls && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // A second, late call would show now.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return log.calls.load();
}

// The owner's block: guard, span, guard, 64-byte aligned.
class OwnedBlock {
 public:
  OwnedBlock() {
    if (posix_memalign(&raw_, 64, kSpan + 2 * kGuard) != 0) raw_ = nullptr;
    if (raw_) std::memset(raw_, kGuardByte, kSpan + 2 * kGuard);
  }
  // Left allocated when release never came: the plugin may still use it.
  void keep() { raw_ = nullptr; }
  ~OwnedBlock() { std::free(raw_); }
  OwnedBlock(const OwnedBlock &) = delete;
  OwnedBlock &operator=(const OwnedBlock &) = delete;

  bool ok() const { return raw_ != nullptr; }
  uint8_t *span() const { return static_cast<uint8_t *>(raw_) + kGuard; }
  float *floats() const { return reinterpret_cast<float *>(span()); }
  bool guards_intact() const {
    const uint8_t *b = static_cast<const uint8_t *>(raw_);
    for (size_t i = 0; i < kGuard; ++i)
      if (b[i] != kGuardByte || b[kGuard + kSpan + i] != kGuardByte) return false;
    return true;
  }

 private:
  void *raw_ = nullptr;
};

bp_plugin_tensor lent_view(bp_buffer b) {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  t.buffer = b;
  t.dtype = BP_FLOAT32;
  t.rank = 1;
  t.shape[0] = int64_t(kElements);
  t.strides[0] = 1;
  return t;
}

bp_op_attrs attrs_with(double scalar) {
  bp_op_attrs attrs;
  std::memset(&attrs, 0, sizeof attrs);
  attrs.struct_size = sizeof attrs;
  attrs.scalar = scalar;
  return attrs;
}

bool floats_are(const OwnedBlock &block, float (*expected)(size_t)) {
  for (size_t i = 0; i < kElements; ++i)
    if (block.floats()[i] != expected(i)) return false;
  return true;
}

class WrapChecks {
 public:
  WrapChecks(Recorder &rec, Plugin &p, int32_t device)
      : rec_(rec), p_(p), d_(device), dn_(p.device_name(device)), wrap_(p.entry(&bp_plugin_api::wrap_host)) {}

  // Reads, writes, operators and free on a lent span. False when the
  // device takes no host memory (BP_ERR_UNSUPPORTED), which skips the rest.
  bool lent_span() {
    OwnedBlock block;
    if (!block.ok()) {
      rec_.fail("the kit could not allocate its own block");
      return true;
    }
    for (size_t i = 0; i < kElements; ++i) block.floats()[i] = float(i) + 0.5f;
    ReleaseLog &log = new_log();
    rec_.begin("wrap_host(" + dn_ + format(", %zu bytes)", kSpan));
    bp_buffer b = nullptr;
    bp_status s;
    {
      auto lock = p_.guard();
      s = wrap_(d_, block.span(), kSpan, record_release, &log, &b);
    }
    if (s == BP_ERR_UNSUPPORTED) {
      rec_.note(dn_ + ": wrap_host answers BP_ERR_UNSUPPORTED for 64-byte aligned host memory: " + p_.last_error());
      rec_.expect(wait_for_release(p_, d_, log, 0) == 0, dn_ + ": a refused wrap_host never calls release",
                  dn_ + ": wrap_host answered BP_ERR_UNSUPPORTED and still called release");
      return false;
    }
    if (s != BP_OK || !b) {
      rec_.fail(dn_ + ": wrap_host of 64-byte aligned host memory failed: " +
                (s == BP_OK ? std::string("it returned a NULL buffer") : p_.describe(s)));
      if (s == BP_OK) block.keep();
      return true;
    }
    reads_and_writes(block, b);
    if (p_.has_host_address()) {
      void *address = nullptr;
      auto lock = p_.guard();
      s = p_.api().host_address(b, &address);
      rec_.expect(s == BP_OK && address == block.span(), dn_ + ": host_address of a wrapped buffer is the lent address",
                  dn_ + ": host_address of a wrapped buffer " +
                      (s == BP_OK ? format("gives %p, not the lent %p", address, static_cast<void *>(block.span()))
                                  : "failed: " + p_.describe(s)));
    }
    operators(block, b);
    free_and_release(block, b, log);
    return true;
  }

  // bytes = 0 at NULL: a real buffer, released once at free.
  void empty_span() {
    ReleaseLog &log = new_log();
    rec_.begin("wrap_host(" + dn_ + ", NULL, 0 bytes)");
    bp_buffer b = nullptr;
    bp_status s;
    {
      auto lock = p_.guard();
      s = wrap_(d_, nullptr, 0, record_release, &log, &b);
    }
    if (!rec_.expect(s == BP_OK, dn_ + ": wrap_host of 0 bytes at NULL",
                     dn_ + ": wrap_host of 0 bytes at NULL failed: " + p_.describe(s)))
      return;
    s = p_.read(b, 0, nullptr, 0);
    rec_.expect(s == BP_OK, dn_ + ": a 0-byte read of a 0-byte wrapped buffer",
                dn_ + ": a 0-byte read of a 0-byte wrapped buffer failed: " + p_.describe(s));
    log.free_called.store(true);
    s = p_.free(b);
    if (!rec_.expect(s == BP_OK, dn_ + ": free of a 0-byte wrapped buffer",
                     dn_ + ": free of a 0-byte wrapped buffer failed: " + p_.describe(s)))
      return;
    const int calls = wait_for_release(p_, d_, log, 1);
    rec_.expect(calls == 1 && !log.before_free.load() && !g_wrong_context.load(),
                dn_ + ": a 0-byte wrapped buffer is released once, after free, with its context",
                dn_ + format(": a 0-byte wrapped buffer was released %d time(s)", calls) +
                    (log.before_free.load() ? ", before free"
                                            : g_wrong_context.load() ? " with the wrong context" : " (once expected)"));
  }

 private:
  void reads_and_writes(OwnedBlock &block, bp_buffer b) {
    std::vector<float> seen(kElements, 0);
    bp_status s = p_.read(b, 0, seen.data(), kSpan);
    rec_.expect(s == BP_OK && std::memcmp(seen.data(), block.span(), kSpan) == 0,
                dn_ + ": read() of a wrapped buffer gives the owner's bytes",
                dn_ + ": read() of a wrapped buffer " +
                    (s == BP_OK ? std::string("gives other bytes than the owner wrote") : "failed: " + p_.describe(s)));
    // The owner writes again, between calls: the plugin must not have copied.
    block.floats()[kElements - 1] = -3.25f;
    float last = 0;
    s = p_.read(b, kSpan - 4, &last, 4);
    rec_.expect(s == BP_OK && last == -3.25f, dn_ + ": read() sees what the owner wrote after wrap_host",
                dn_ + ": after the owner changed its last element, read() " +
                    (s == BP_OK ? format("gives %g, not -3.25 (a copy, not the owner's memory?)", double(last))
                                : "failed: " + p_.describe(s)));
    const float patch[3] = {7.f, 8.f, 9.f};
    s = p_.write(b, 8, patch, sizeof patch);
    p_.synchronize(d_);
    rec_.expect(s == BP_OK && std::memcmp(block.span() + 8, patch, sizeof patch) == 0 && block.floats()[1] == 1.5f &&
                    block.floats()[5] == 5.5f && block.guards_intact(),
                dn_ + ": write() into a wrapped buffer lands in the owner's memory, and only there",
                dn_ + ": write() of 12 bytes at offset 8 into a wrapped buffer " +
                    (s == BP_OK ? std::string("did not land in the owner's memory exactly there")
                                : "failed: " + p_.describe(s)));
  }

  void operators(OwnedBlock &block, bp_buffer b) {
    const bp_plugin_tensor view = lent_view(b);
    bool ran = false;
    if (p_.declares(d_, BP_OP_FILL, BP_FLOAT32, BP_FLOAT32)) {
      const bp_op_attrs attrs = attrs_with(2.5);
      bp_status s = p_.execute(d_, BP_OP_FILL, &attrs, nullptr, 0, &view);
      if (s == BP_OK) s = p_.synchronize(d_);
      rec_.expect(s == BP_OK && floats_are(block, [](size_t) { return 2.5f; }) && block.guards_intact(),
                  dn_ + ": fill float32 into a wrapped buffer writes the owner's memory",
                  dn_ + ": fill float32 (2.5) into a wrapped buffer " +
                      (s == BP_OK ? std::string("left the owner's memory without those values, or wrote past it")
                                  : "failed: " + p_.describe(s)));
      ran = true;
    }
    if (p_.declares(d_, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32)) {
      for (size_t i = 0; i < kElements; ++i) block.floats()[i] = float(i);
      const bp_op_attrs attrs = attrs_with(0);
      const bp_plugin_tensor inputs[2] = {view, view};
      bp_status s = p_.execute(d_, BP_OP_ADD, &attrs, inputs, 2, &view);
      if (s == BP_OK) s = p_.synchronize(d_);
      rec_.expect(s == BP_OK && floats_are(block, [](size_t i) { return float(2 * i); }) && block.guards_intact(),
                  dn_ + ": add float32 in place in a wrapped buffer reads and writes the owner's memory",
                  dn_ + ": add float32 of a wrapped buffer to itself, in place, " +
                      (s == BP_OK ? std::string("did not leave twice the owner's values in its memory")
                                  : "failed: " + p_.describe(s)));
      ran = true;
    }
    if (!ran) rec_.note(dn_ + ": declares neither fill nor add float32: no operator ran on a wrapped buffer");
  }

  void free_and_release(OwnedBlock &block, bp_buffer b, ReleaseLog &log) {
    // Checked after the reads, writes and operators, so a release at wrap
    // time or during them is caught too.
    if (!rec_.expect(log.calls.load() == 0 && !g_wrong_context.load(),
                     dn_ + ": release is not called while the buffer lives",
                     dn_ + format(": release was called %d time(s) before free", log.calls.load()) +
                         (g_wrong_context.load() ? " (or with another context than wrap_host was given)" : ""))) {
      block.keep();
      return;
    }
    log.free_called.store(true);
    const bp_status s = p_.free(b);
    if (!rec_.expect(s == BP_OK, dn_ + ": free of a wrapped buffer",
                     dn_ + ": free of a wrapped buffer failed: " + p_.describe(s))) {
      block.keep();
      return;
    }
    const int calls = wait_for_release(p_, d_, log, 1);
    rec_.expect(calls == 1, dn_ + ": release is called exactly once after free",
                dn_ + format(": release was called %d time(s) for one wrapped buffer; exactly once is the rule", calls));
    rec_.expect(!g_wrong_context.load(), dn_ + ": release gets the context given to wrap_host",
                dn_ + ": release was called with another context than the one given to wrap_host");
    if (calls == 0) {
      block.keep();  // the plugin may still hold it
      return;
    }
    rec_.expect(block.guards_intact(), dn_ + ": free of a wrapped buffer leaves the bytes around the span alone",
                dn_ + ": the bytes around the lent span changed by the time it was released");
    // The plugin must leave the memory alone from now on.
    std::memset(block.span(), 0x3C, kSpan);
    bp_buffer other = nullptr;
    if (p_.alloc(d_, kSpan, &other) == BP_OK) {
      std::vector<uint8_t> zeros(kSpan, 0);
      p_.write(other, 0, zeros.data(), kSpan);
      p_.free(other);
    }
    p_.synchronize(d_);
    bool untouched = block.guards_intact();
    for (size_t i = 0; i < kSpan; ++i) untouched = untouched && block.span()[i] == 0x3C;
    rec_.expect(untouched, dn_ + ": after release the plugin no longer touches the memory",
                dn_ + ": the owner's memory changed after release (the plugin reused it for a new buffer?)");
  }

  Recorder &rec_;
  Plugin &p_;
  int32_t d_;
  std::string dn_;
  decltype(bp_plugin_api::wrap_host) wrap_;
};

// wrap_host on a device that does not exist, or with NULL data for bytes:
// refused, no buffer, and release never called.
// NULL data for non-zero bytes is asked of device 0 only when it takes host
// memory (else BP_ERR_UNSUPPORTED could come first, rightly).
void refusals(Recorder &rec, Plugin &p, bool host_device_0) {
  const auto wrap = p.entry(&bp_plugin_api::wrap_host);
  const int32_t n = p.device_count();
  OwnedBlock block;
  if (!block.ok()) return;
  rec.begin("wrap_host refusals");
  struct Refusal {
    int32_t device;
    void *data;
    const char *what;
  };
  std::vector<Refusal> refusals = {{n, block.span(), "an unknown device"}, {-1, block.span(), "device -1"}};
  if (host_device_0) refusals.push_back({0, nullptr, "NULL data for 1024 bytes"});
  for (const Refusal &r : refusals) {
    g_refused.calls.store(0);
    bp_buffer b = nullptr;
    bp_status s;
    {
      auto lock = p.guard();
      s = wrap(r.device, r.data, r.data ? kSpan : 1024, record_refused, &block, &b);
    }
    const std::string call = format("wrap_host(%d, ...) with %s", int(r.device), r.what);
    const bool unknown_device = r.data != nullptr;
    rec.expect(unknown_device ? (s == BP_ERR_UNKNOWN_DEVICE || s == BP_ERR_INVALID_ARGUMENT)
                              : s == BP_ERR_INVALID_ARGUMENT,
               call + " is refused",
               call + (s == BP_OK ? std::string(" returned BP_OK")
                                  : " returned " + p.describe(s)) +
                   (unknown_device ? "; it must be BP_ERR_UNKNOWN_DEVICE" : "; it must be BP_ERR_INVALID_ARGUMENT"));
    if (s == BP_OK && b) {
      block.keep();  // the plugin now believes it may release it
      continue;
    }
    const int calls = wait_for_release(p, r.device >= 0 && r.device < n ? r.device : 0, g_refused, 0);
    rec.expect(calls == 0, call + " never calls release",
               call + format(" failed but called release %d time(s); on failure the memory stays the caller's", calls));
  }
  rec.expect(block.guards_intact(), "refused wrap_host calls leave the memory alone",
             "a refused wrap_host call wrote around the span it was given");
}

}  // namespace

void group_wrap_host(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  if (!has_optional_entry(rec, p, &bp_plugin_api::wrap_host,
                          "no wrap_host entry (optional, not declared): the core copies host memory in instead"))
    return;
  bool host_device_0 = false;
  for (int32_t d : ctx.devices(p, true)) {
    WrapChecks checks(rec, p, d);
    if (!checks.lent_span()) continue;
    checks.empty_span();
    if (d == 0) host_device_0 = true;
  }
  refusals(rec, p, host_device_0);
}

}  // namespace bpcheck
