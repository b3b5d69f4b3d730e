// Where an open safetensors file's bytes come from: a file read with
// pread (its descriptor kept open, so loads read the file that was checked)
// or a copy of bytes the caller held in memory. Reads name the source and
// never go past its end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bp::core::safetensors {

class Source {
 public:
  virtual ~Source() = default;
  // What messages call it: the path, or "<memory>".
  const std::string &name() const { return name_; }
  uint64_t size() const { return size_; }
  // Copies bytes [offset, offset + n) into dst; `what` says what they are
  // for a message. Throws BP_ERR_IO when they cannot be read (a file that
  // shrank since it was opened, a read error).
  virtual void read(uint64_t offset, uint64_t n, void *dst, const std::string &what) const = 0;

 protected:
  Source(std::string name, uint64_t size) : name_(std::move(name)), size_(size) {}

 private:
  std::string name_;
  uint64_t size_;
};

// Opens a regular file (BP_ERR_IO naming fn and the path otherwise).
std::unique_ptr<Source> open_file(const char *fn, const std::string &path);
// A copy of n bytes at data.
std::unique_ptr<Source> copy_of_memory(const void *data, uint64_t n);

}  // namespace bp::core::safetensors
