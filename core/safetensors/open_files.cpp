#include "safetensors/open_files.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "dispatch/creation.hpp"
#include "errors/error.hpp"

namespace bp::core::safetensors {

namespace {

struct Table {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::shared_ptr<const OpenFile>> files;
  uint64_t next = 1;
};

Table &table() {
  static Table *t = new Table;  // never destroyed: handles stay checkable in static destructors
  return *t;
}

[[noreturn]] void no_file(const char *fn, uint64_t handle) {
  fail(BP_ERR_INVALID_HANDLE, std::string(fn) + ": " +
                                  (handle == 0 ? std::string("the file handle is 0")
                                               : "handle " + std::to_string(handle) +
                                                     " is no open safetensors file (closed or never opened)"));
}

}  // namespace

uint64_t add(std::shared_ptr<const OpenFile> file) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const uint64_t handle = t.next++;
  t.files.emplace(handle, std::move(file));
  return handle;
}

std::shared_ptr<const OpenFile> find(const char *fn, uint64_t handle) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto it = t.files.find(handle);
  if (it == t.files.end()) no_file(fn, handle);
  return it->second;
}

void remove(const char *fn, uint64_t handle) {
  Table &t = table();
  std::shared_ptr<const OpenFile> gone;  // freed after the lock is released
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto it = t.files.find(handle);
  if (it == t.files.end()) no_file(fn, handle);
  gone = std::move(it->second);
  t.files.erase(it);
}

const Entry &entry_named(const char *fn, const OpenFile &file, const std::string &name) {
  const std::vector<Entry> &entries = file.contents.entries;
  const auto it = std::lower_bound(entries.begin(), entries.end(), name,
                                   [](const Entry &e, const std::string &n) { return e.name < n; });
  if (it == entries.end() || it->name != name)
    fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + shown(file.source->name(), 4096) + " holds no tensor '" +
                                      shown(name) + "' (it holds " + std::to_string(entries.size()) + ")");
  return *it;
}

View load(const OpenFile &file, const Entry &entry, Device &device) {
  std::vector<unsigned char> bytes(size_t(entry.end - entry.begin));
  file.source->read(file.contents.data_start + entry.begin, entry.end - entry.begin, bytes.data(),
                    "tensor '" + shown(entry.name) + "'");
  return from_host(device, entry.dtype, entry.rank, entry.shape, bytes.data());
}

}  // namespace bp::core::safetensors
