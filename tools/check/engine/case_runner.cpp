#include "case_runner.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "text.hpp"

namespace bpcheck {

BoundCase::BoundCase(Plugin &plugin, int32_t device, const Case &c) : plugin_(plugin), device_(device), case_(c) {
  buffers_.assign(c.storages.size(), nullptr);
  for (size_t i = 0; i < c.storages.size(); ++i) {
    bp_buffer b = nullptr;
    bp_status s = plugin.alloc(device, c.storages[i].size(), &b);
    if (s != BP_OK) {
      failure_ = format("alloc of %zu bytes failed: ", c.storages[i].size()) + plugin.describe(s);
      return;
    }
    buffers_[i] = b;
    if (!c.storages[i].empty()) {
      s = plugin.write(b, 0, c.storages[i].data(), c.storages[i].size());
      if (s != BP_OK) {
        failure_ = format("write of %zu bytes failed: ", c.storages[i].size()) + plugin.describe(s);
        return;
      }
    }
  }
}

BoundCase::~BoundCase() {
  for (bp_buffer b : buffers_)
    if (b) plugin_.free(b);
}

bp_status BoundCase::free_storage(int storage) {
  bp_buffer &b = buffers_[size_t(storage)];
  bp_status s = plugin_.free(b);
  b = nullptr;
  return s;
}

bp_plugin_tensor BoundCase::tensor(const ViewDesc &v) const {
  bp_plugin_tensor t;
  std::memset(&t, 0, sizeof t);
  if (is_absent(v)) return t;  // dtype 0, rank 0, no buffer
  t.buffer = buffers_[size_t(v.storage)];
  t.offset = v.offset;
  t.dtype = v.dtype;
  t.rank = v.rank;
  for (int d = 0; d < v.rank; ++d) {
    t.shape[d] = v.shape[d];
    t.strides[d] = v.strides[d];
  }
  return t;
}

bp_status BoundCase::execute() { return execute_raw(&case_.attrs); }

bp_status BoundCase::execute(const bp_op_attrs &attrs) { return execute_raw(&attrs); }

bp_status BoundCase::execute_raw(const bp_op_attrs *attrs) {
  std::vector<bp_plugin_tensor> inputs, outputs;
  for (const ViewDesc &v : case_.inputs) inputs.push_back(tensor(v));
  for (size_t i = 0; i < output_count(case_); ++i) outputs.push_back(tensor(output_at(case_, i)));
  // The case's own attrs carry its window; a caller's attrs are sent as given.
  bp_op_attrs with_window;
  if (attrs == &case_.attrs && case_.window) {
    with_window = case_.attrs;
    with_window.params = &*case_.window;
    attrs = &with_window;
  }
  return plugin_.execute(device_, case_.op, attrs, inputs.empty() ? nullptr : inputs.data(),
                         int32_t(inputs.size()), outputs.data());
}

std::string BoundCase::read_storage(int storage, std::vector<uint8_t> *out) {
  // Each byte starts as the complement of what the kit wrote there, so a
  // read that writes nothing is told apart from one that brings back bytes
  // an operator changed (which judge() would take for stray writes).
  const std::vector<uint8_t> &written = case_.storages[size_t(storage)];
  out->resize(written.size());
  if (out->empty()) return {};
  std::transform(written.begin(), written.end(), out->begin(), [](uint8_t b) { return uint8_t(~b); });
  bp_status s = plugin_.read(buffers_[size_t(storage)], 0, out->data(), out->size());
  if (s != BP_OK) return format("read of %zu bytes failed: ", out->size()) + plugin_.describe(s);
  if (std::equal(out->begin(), out->end(), written.begin(), [](uint8_t got, uint8_t w) { return got == uint8_t(~w); }))
    return format("read of %zu bytes returned BP_OK but wrote nothing into the host buffer", out->size());
  return {};
}

std::string BoundCase::write_storage(int storage, const std::vector<uint8_t> &bytes) {
  if (bytes.empty()) return {};
  bp_status s = plugin_.write(buffers_[size_t(storage)], 0, bytes.data(), bytes.size());
  if (s != BP_OK) return format("write of %zu bytes failed: ", bytes.size()) + plugin_.describe(s);
  return {};
}

std::string BoundCase::read_all(std::vector<std::vector<uint8_t>> *out) {
  out->resize(case_.storages.size());
  for (size_t i = 0; i < case_.storages.size(); ++i) {
    if (!buffers_[i]) continue;
    std::string e = read_storage(int(i), &(*out)[i]);
    if (!e.empty()) return e;
  }
  return {};
}

Outcome BoundCase::execute_and_read(const bp_op_attrs *attrs, const char *refused) {
  Outcome o;
  bp_status s = execute_raw(attrs ? attrs : &case_.attrs);
  if (s != BP_OK) {
    o.failure = std::string(refused) + ": " + plugin_.describe(s);
    return o;
  }
  std::string e = read_all(&o.storages);
  if (!e.empty()) {
    o.failure = "after execute, " + e;
    return o;
  }
  o.ok = true;
  return o;
}

Outcome run_case(Plugin &plugin, int32_t device, const Case &c, const bp_op_attrs *attrs, const char *refused) {
  BoundCase bound(plugin, device, c);
  if (!bound.ok()) {
    Outcome o;
    o.failure = bound.failure();
    return o;
  }
  return bound.execute_and_read(attrs, refused);
}

}  // namespace bpcheck
