// Running one collective case on a plugin (collective_oracle.hpp): guarded
// buffers on each participant's device, the collective entry, and every
// output judged against the host's values.
#include <algorithm>
#include <cstring>

#include "collective_oracle.hpp"
#include "text.hpp"
#include "views.hpp"

namespace bpcheck {

using Shape = Coll::Shape;
using Bytes = std::vector<uint8_t>;

GuardedBuffer::~GuardedBuffer() {
  if (buffer) plugin->free(buffer);
}

std::string GuardedBuffer::make(Plugin &p, int32_t device, const Bytes &values, size_t bytes, uint8_t guard) {
  plugin = &p;
  contents.assign(bytes + 2 * size_t(kGuardBytes), guard);
  if (!values.empty()) std::memcpy(contents.data() + kGuardBytes, values.data(), values.size());
  bp_status s = p.alloc(device, contents.size(), &buffer);
  if (s != BP_OK) {
    buffer = nullptr;
    return format("alloc of %zu bytes on %s failed: ", contents.size(), p.device_name(device).c_str()) +
           p.describe(s);
  }
  s = p.write(buffer, 0, contents.data(), contents.size());
  return s == BP_OK ? "" : "write failed: " + p.describe(s);
}

bp_plugin_tensor GuardedBuffer::view(int32_t dtype, const Shape &shape) const {
  bp_plugin_tensor t{};
  t.buffer = buffer;
  t.offset = uint64_t(kGuardBytes);
  t.dtype = dtype;
  t.rank = int32_t(shape.size());
  int64_t stride = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    t.shape[d] = shape[size_t(d)];
    t.strides[d] = stride;
    stride *= std::max<int64_t>(shape[size_t(d)], 1);
  }
  return t;
}

Bytes GuardedBuffer::now(std::string *problem) const {
  Bytes b(contents.size());
  const bp_status s = plugin->read(buffer, 0, b.data(), b.size());
  if (s != BP_OK) *problem = "read failed: " + plugin->describe(s);
  return b;
}

Verdict run_collective(Plugin &p, const Coll &c, std::string *problem) {
  const size_t count = c.devices.size();
  const int32_t size = bp_vocab_dtype_size(c.dtype);
  const Shape in_shape = c.in_shape(), out_shape = c.out_shape();
  const size_t in_bytes = size_t(elements(in_shape) * size), out_bytes = size_t(elements(out_shape) * size);
  std::vector<Bytes> values;
  for (int32_t j = 0; j < c.n(); ++j) values.push_back(input_values(c, j));
  std::vector<GuardedBuffer> in(count), out(count);
  std::vector<bp_plugin_tensor> in_views, out_views;
  for (size_t i = 0; i < count; ++i) {
    *problem = in[i].make(p, c.devices[i], values[i], in_bytes, kInputPattern);
    if (problem->empty() && !c.in_place) *problem = out[i].make(p, c.devices[i], {}, out_bytes, kOutputPattern);
    if (!problem->empty()) return Verdict::failed;
    in_views.push_back(in[i].view(c.dtype, in_shape));
    out_views.push_back(c.in_place ? in_views.back() : out[i].view(c.dtype, out_shape));
  }
  bp_collective_args args{};
  args.struct_size = sizeof args;
  args.collective = c.collective;
  args.reduce_op = c.reduce_op;
  args.root = c.root;
  args.count = int32_t(count);
  args.devices = c.devices.data();
  args.inputs = in_views.data();
  args.outputs = out_views.data();
  args.group = c.group;
  const bp_status s = p.collective(&args);
  if (s != BP_OK && s != BP_ERR_UNSUPPORTED) {
    *problem = "the collective entry refused it: " + p.describe(s);
    return Verdict::failed;
  }
  for (size_t i = 0; i < count; ++i) {
    const std::string who = format("participant %zu (", i) + p.device_name(c.devices[i]) + ")";
    const GuardedBuffer &o = c.in_place ? in[i] : out[i];
    const Bytes after = o.now(problem);
    const Bytes input = c.in_place ? after : in[i].now(problem);
    if (!problem->empty()) return Verdict::failed;
    if (s == BP_ERR_UNSUPPORTED) {
      if (after != o.contents || input != in[i].contents) {
        *problem = "answered BP_ERR_UNSUPPORTED after writing into " + who +
                   "'s memory (the core then runs it itself: decline before writing anything)";
        return Verdict::failed;
      }
      continue;
    }
    if (!std::equal(after.begin(), after.begin() + kGuardBytes, o.contents.begin()) ||
        !std::equal(after.end() - kGuardBytes, after.end(), o.contents.end() - kGuardBytes)) {
      *problem = "wrote outside " + who + "'s output (the guard bytes around it changed)";
      return Verdict::failed;
    }
    if (!c.in_place && input != in[i].contents) {
      *problem = "changed " + who + "'s input";
      return Verdict::failed;
    }
    const Bytes got(after.begin() + kGuardBytes, after.end() - kGuardBytes);
    const std::string wrong = compare(c, got, expected_output(c, values, int32_t(i)));
    if (!wrong.empty()) {
      *problem = "computes wrong values: " + who + "'s output " + wrong;
      return Verdict::failed;
    }
  }
  return s == BP_OK ? Verdict::passed : Verdict::declined;
}

}  // namespace bpcheck
