#include "safetensors/writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "dispatch/creation.hpp"
#include "errors/error.hpp"
#include "errors/names.hpp"
#include "safetensors/format.hpp"

namespace bp::core::safetensors {

// The format is little-endian, and so is every host Backplane builds for;
// a big-endian one would need the bytes of each element swapped here and in
// the reader.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors files are little-endian");

namespace {

void check_text(const char *fn, const std::string &what, const std::string &text) {
  if (!valid_utf8(text))
    fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + " '" + shown(text) + "' is not UTF-8 text");
}

void write_all(int fd, const void *data, uint64_t n, const std::string &where) {
  const auto *p = static_cast<const char *>(data);
  while (n) {
    const ssize_t put = ::write(fd, p, size_t(std::min<uint64_t>(n, uint64_t(1) << 30)));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail(BP_ERR_IO, where + ": " + std::strerror(errno));
    p += put;
    n -= uint64_t(put);
  }
}

}  // namespace

Plan plan(const char *fn, std::vector<Named> tensors,
          const std::vector<std::pair<std::string, std::string>> &metadata) {
  std::set<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string &name = tensors[i].name;
    check_text(fn, "the name of tensor " + std::to_string(i), name);
    if (name == kMetadataKey)
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": tensor " + std::to_string(i) +
                                        " is called '__metadata__', the format's name for the metadata");
    if (!names.insert(name).second)
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": the name '" + shown(name) + "' is given twice");
  }
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    std::set<std::string> keys;
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto &[key, value] : metadata) {
      check_text(fn, "the metadata key", key);
      check_text(fn, "the metadata value of '" + shown(key) + "',", value);
      if (!keys.insert(key).second)
        fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": the metadata key '" + shown(key) + "' is given twice");
      meta[key] = value;
    }
    header[std::string(kMetadataKey)] = std::move(meta);
  }
  std::sort(tensors.begin(), tensors.end(), [](const Named &a, const Named &b) {
    const int32_t sa = dtype_size(a.view.dtype), sb = dtype_size(b.view.dtype);
    return sa != sb ? sa > sb : a.name < b.name;
  });
  uint64_t offset = 0;
  for (const Named &t : tensors) {
    const uint64_t bytes = uint64_t(t.view.numel()) * uint64_t(dtype_size(t.view.dtype));
    header[t.name] = {{"dtype", code_of(t.view.dtype)},
                      {"shape", std::vector<int64_t>(t.view.shape, t.view.shape + t.view.rank)},
                      {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  Plan p{std::move(tensors), header.dump()};
  p.header.append((8 - p.header.size() % 8) % 8, ' ');
  return p;
}

void write(const Plan &plan, const std::function<void(const void *, uint64_t)> &sink) {
  unsigned char length[kLengthBytes];
  uint64_t n = plan.header.size();
  for (unsigned char &b : length) b = static_cast<unsigned char>(n & 0xFF), n >>= 8;
  sink(length, kLengthBytes);
  sink(plan.header.data(), plan.header.size());
  std::vector<unsigned char> buffer;
  for (const Named &t : plan.tensors) {
    const uint64_t bytes = uint64_t(t.view.numel()) * uint64_t(dtype_size(t.view.dtype));
    buffer.resize(size_t(bytes));
    to_host(t.view, buffer.data(), bytes);
    sink(buffer.data(), bytes);
  }
}

void save_file(const char *fn, const std::string &path, const Plan &plan) {
  static std::atomic<uint64_t> counter{0};
  const std::string where = std::string(fn) + ": " + shown(path, 4096);
  std::string temporary;
  int fd;
  do {
    temporary = path + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter++);
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  } while (fd < 0 && (errno == EEXIST || errno == EINTR));
  if (fd < 0) fail(BP_ERR_IO, where + ": cannot create " + shown(temporary, 4096) + ": " + std::strerror(errno));
  try {
    write(plan, [&](const void *data, uint64_t n) { write_all(fd, data, n, where + ": writing"); });
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0) fail(BP_ERR_IO, where + ": writing: " + std::strerror(errno));
    if (::rename(temporary.c_str(), path.c_str()) != 0)
      fail(BP_ERR_IO, where + ": cannot replace it with the file written: " + std::strerror(errno));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
}

}  // namespace bp::core::safetensors
