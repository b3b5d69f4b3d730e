// Running a case on a plugin: its storages in buffers of one device,
// execute on its views, and every storage read back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "plugin.hpp"

namespace bpcheck {

// What running a case produced.
struct Outcome {
  bool ok = false;
  std::string failure;                         // "execute refused it: ...", "read failed: ..."
  std::vector<std::vector<uint8_t>> storages;  // every storage read back after execute
};

// Buffers on one plugin device holding a case's storages.
class BoundCase {
 public:
  BoundCase(Plugin &plugin, int32_t device, const Case &c);
  ~BoundCase();
  BoundCase(const BoundCase &) = delete;
  BoundCase &operator=(const BoundCase &) = delete;
  bool ok() const { return failure_.empty(); }
  const std::string &failure() const { return failure_; }
  bp_status execute();  // the case's op on its views
  bp_status execute(const bp_op_attrs &attrs);
  // Reads every storage back into *out; "" or what failed.
  std::string read_all(std::vector<std::vector<uint8_t>> *out);
  std::string read_storage(int storage, std::vector<uint8_t> *out);
  std::string write_storage(int storage, const std::vector<uint8_t> &bytes);
  bp_buffer buffer(int storage) const { return buffers_[size_t(storage)]; }
  // Frees one buffer now (the rest at destruction).
  bp_status free_storage(int storage);
  // The ABI view of a case's view, on these buffers.
  bp_plugin_tensor tensor(const ViewDesc &v) const;
  // execute with an attrs pointer as given (e.g. a short one at a page end).
  bp_status execute_raw(const bp_op_attrs *attrs);
  // execute (with `attrs`, the case's own when NULL), then read every
  // storage back; a failed execute's text starts with `refused`.
  Outcome execute_and_read(const bp_op_attrs *attrs = nullptr, const char *refused = "execute refused it");

 private:
  Plugin &plugin_;
  int32_t device_;
  const Case &case_;
  std::vector<bp_buffer> buffers_;
  std::string failure_;
};

// alloc + write + execute (with `attrs`, the case's own when NULL) + read +
// free. `refused` starts the failure text when execute fails.
Outcome run_case(Plugin &plugin, int32_t device, const Case &c, const bp_op_attrs *attrs = nullptr,
                 const char *refused = "execute refused it");

}  // namespace bpcheck
