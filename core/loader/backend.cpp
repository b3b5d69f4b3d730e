#include "loader/backend.hpp"

#include <map>

#include "devices/registry.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "loader/plugin_scratch.hpp"
#include "loader/plugin_strings.hpp"

namespace bp::core {

namespace {

using InitFn = decltype(bp_plugin_api::init);

struct BackendStore {
  std::mutex mutex;
  std::map<InitFn, std::unique_ptr<Backend>> by_init;
};

BackendStore &store() {
  static auto *s = new BackendStore();  // never destroyed: devices and storages point into it
  return *s;
}

}  // namespace

Backend *Backend::adopt(std::string path, const bp_plugin_api *api, uint32_t api_size, BackendOptions options,
                        bool builtin) {
  BackendStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.by_init.find(api->init);
  if (it == s.by_init.end()) {
    std::unique_ptr<Backend> b(new Backend(std::move(path), api, api_size, std::move(options), builtin));
    return s.by_init.emplace(api->init, std::move(b)).first->second.get();
  }
  Backend &b = *it->second;
  std::lock_guard<std::mutex> start_lock(b.start_mutex_);
  b.options_ = std::move(options);
  b.start_failed_ = false;  // the new runtime's start is its own
  return &b;
}

void Backend::unlist_all() {
  BackendStore &s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &entry : s.by_init) {
    Backend &b = *entry.second;
    std::lock_guard<std::mutex> start_lock(b.start_mutex_);
    b.started_.store(false, std::memory_order_release);
    b.devices_.clear();
  }
}

Backend::Backend(std::string path, const bp_plugin_api *api, uint32_t api_size, BackendOptions options,
                 bool builtin)
    : path_(std::move(path)),
      name_(api->name),
      version_(api->version ? api->version : ""),
      prefix_(api->device_prefix),
      api_(api),
      api_size_(api_size),
      thread_safe_((api->flags & BP_PLUGIN_THREAD_SAFE) != 0),
      builtin_(builtin),
      options_(std::move(options)) {}

Backend::Failure Backend::failure(bp_status raw) const {
  std::string msg = copy_plugin_string(api_->last_error());
  if (msg.empty()) msg = "no message";
  // A code outside the enum is the plugin's bug; the caller gets a status it
  // knows, and the raw code is kept in the message.
  if (bp_vocab_status_name(raw)) return {raw, status_name(raw), std::move(msg)};
  return {BP_ERR_BACKEND,
          std::string(status_name(BP_ERR_BACKEND)) + ", its code " + std::to_string(int32_t(raw)) + " is no bp_status",
          std::move(msg)};
}

void Backend::check(bp_status s, const char *call) const {
  if (s == BP_OK) return;
  const Failure f = failure(s);
  fail(f.status, "backend " + name_ + ": " + call + " failed (" + f.code + "): " + f.message);
}

bool Backend::start() {
  if (started_.load(std::memory_order_acquire)) return true;
  std::lock_guard<std::mutex> lock(start_mutex_);
  if (started_.load(std::memory_order_relaxed)) return true;
  if (start_failed_) return false;
  try {
    std::vector<const char *> keys, values;
    for (auto &kv : options_) {
      keys.push_back(kv.first.c_str());
      values.push_back(kv.second.c_str());
    }
    if (!initialised_) {
      auto lock = call_lock();
      check(api_->init(keys.data(), values.data(), int32_t(keys.size())), "init");
      initialised_ = true;
      init_options_ = options_;
    } else if (options_ != init_options_) {
      fail(BP_ERR_CONFIG, "backend " + name_ + ": already started in this process with other [backend." + name_ +
                              "] options; a plugin starts once per process (restart the process to change them)");
    }
    enumerate();
  } catch (const Error &e) {
    start_failed_ = true;
    start_status_ = e.status();
    start_error_ = e.what();
    return false;
  } catch (const std::exception &e) {
    start_failed_ = true;
    start_status_ = BP_ERR_PLUGIN;
    start_error_ = e.what();
    return false;
  }
  started_.store(true, std::memory_order_release);
  return true;
}

void Backend::enumerate() {
  int32_t count = 0;
  const char *why = nullptr;
  {
    auto lock = call_lock();
    check(api_->device_count(&count, &why), "device_count");
  }
  if (count < 0) fail(BP_ERR_PLUGIN, "backend " + name_ + ": device_count returned a negative count");
  if (count == 0) why_none_ = why ? copy_plugin_string(why) : "the backend reports no devices";
  if (count > Registry::kMaxDevicesPerBackend)
    fail(BP_ERR_PLUGIN, "backend " + name_ + " reports " + std::to_string(count) +
                            " devices; a backend may have at most " + std::to_string(Registry::kMaxDevicesPerBackend));
  caps_.reset(new std::atomic<uint8_t>[size_t(count) * kCapsPerDevice]());
  // Every device is described before any is registered: a backend whose
  // enumeration fails half-way must leave no device behind.
  std::vector<Registry::NewDevice> described;
  for (int32_t i = 0; i < count; ++i) {
    const bp_plugin_device_info info = device_info(i);
    described.push_back({info.kind, info.model});
  }
  devices_ = registry().add_devices(this, described);
}

bp_plugin_device_info Backend::device_info(int32_t device) {
  PluginScratch scratch(sizeof(bp_plugin_device_info));
  bp_plugin_device_info *info = scratch.as<bp_plugin_device_info>();
  info->struct_size = sizeof *info;
  {
    auto lock = call_lock();
    check(api_->device_info(device, info), "device_info");
  }
  scratch.check(*this, "device_info");
  bp_plugin_device_info out = *info;
  out.model[sizeof out.model - 1] = '\0';
  return out;
}

bool Backend::ask_supports(size_t index, int32_t device, int32_t op, int32_t dtype,
                           int32_t out_dtype) {
  int32_t answer = 0;
  if (knows_op(op) && knows_dtype(dtype) && knows_dtype(out_dtype)) {
    auto lock = call_lock();
    check(api_->supports(device, op, dtype, out_dtype, &answer), "supports");
  }
  caps_[index].store(answer ? 2 : 1, std::memory_order_relaxed);
  return answer != 0;
}

}  // namespace bp::core
