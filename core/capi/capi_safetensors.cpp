// Saving and loading safetensors files (backplane.h, since 1.6): the C
// arguments read into the format code of core/safetensors/.
#include <algorithm>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "capi/guard.hpp"
#include "capi/tensor_arg.hpp"
#include "devices/registry.hpp"
#include "safetensors/header.hpp"
#include "safetensors/open_files.hpp"
#include "safetensors/writer.hpp"
#include "tensors/handle_table.hpp"

using namespace bp::core;
namespace st = bp::core::safetensors;

namespace {

void check_count(const char *fn, const char *what, int32_t count, const void *array) {
  if (count < 0) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + " count " + std::to_string(count) + " is negative");
  if (count > 0 && !array) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + " is NULL");
}

std::string text_arg(const char *fn, const char *text, const std::string &what) {
  if (!text) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + what + " is NULL");
  return text;
}

st::Plan plan_of(const char *fn, const bp_named_tensor *tensors, int32_t count,
                 const bp_metadata_entry *metadata, int32_t metadata_count) {
  check_count(fn, "tensors", count, tensors);
  check_count(fn, "metadata", metadata_count, metadata);
  std::vector<st::Named> named;
  named.reserve(size_t(count));
  for (int32_t i = 0; i < count; ++i) {
    const std::string what = "tensors[" + std::to_string(i) + "]";
    std::string name = text_arg(fn, tensors[i].name, what + ".name");
    named.push_back({std::move(name), tensor_arg(fn, tensors[i].tensor, what + ".tensor")});
  }
  std::vector<std::pair<std::string, std::string>> meta;
  for (int32_t i = 0; i < metadata_count; ++i) {
    const std::string what = "metadata[" + std::to_string(i) + "]";
    meta.emplace_back(text_arg(fn, metadata[i].key, what + ".key"), text_arg(fn, metadata[i].value, what + ".value"));
  }
  return st::plan(fn, std::move(named), meta);
}

template <class Make>
bp_status open_as(const char *fn, bp_safetensors *out, Make &&make) {
  return guarded([&] {
    as_function(fn, {}, [&] {
      bp_safetensors &o = require(out, fn, "out");
      auto file = std::make_shared<st::OpenFile>();
      file->source = make();
      file->contents = st::read_header(*file->source);
      o = st::add(std::move(file));
    });
  });
}

// Runs body(file) for an open file; errors start with fn.
template <class Body>
bp_status with_file(const char *fn, bp_safetensors handle, Body &&body) {
  return guarded([&] {
    as_function(fn, {}, [&] { body(*st::find(fn, handle)); });
  });
}

}  // namespace

extern "C" {

bp_status bp_safetensors_save(const char *path, const bp_named_tensor *tensors, int32_t count,
                              const bp_metadata_entry *metadata, int32_t metadata_count) {
  const char *fn = "bp_safetensors_save";
  return guarded([&] {
    as_function(fn, {"to_host"}, [&] {
      const std::string file = text_arg(fn, path, "path");
      st::save_file(fn, file, plan_of(fn, tensors, count, metadata, metadata_count));
    });
  });
}

bp_status bp_safetensors_write(bp_safetensors_write_fn write, void *context, const bp_named_tensor *tensors,
                               int32_t count, const bp_metadata_entry *metadata, int32_t metadata_count) {
  const char *fn = "bp_safetensors_write";
  return guarded([&] {
    as_function(fn, {"to_host"}, [&] {
      if (!write) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": write is NULL");
      const st::Plan plan = plan_of(fn, tensors, count, metadata, metadata_count);
      uint64_t written = 0;
      st::write(plan, [&](const void *data, uint64_t n) {
        if (write(context, data, n) != 0)
          fail(BP_ERR_IO, std::string(fn) + ": the write function failed on bytes " + std::to_string(written) + ".." +
                              std::to_string(written + n));
        written += n;
      });
    });
  });
}

bp_status bp_safetensors_open(const char *path, bp_safetensors *out) {
  const char *fn = "bp_safetensors_open";
  return open_as(fn, out, [&] { return st::open_file(fn, text_arg(fn, path, "path")); });
}

bp_status bp_safetensors_open_memory(const void *data, uint64_t bytes, bp_safetensors *out) {
  const char *fn = "bp_safetensors_open_memory";
  return open_as(fn, out, [&] {
    if (bytes && !data) fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": data is NULL");
    return st::copy_of_memory(data, bytes);
  });
}

bp_status bp_safetensors_close(bp_safetensors file) {
  return guarded([&] { st::remove("bp_safetensors_close", file); });
}

bp_status bp_safetensors_count(bp_safetensors file, int32_t *count) {
  const char *fn = "bp_safetensors_count";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    require(count, fn, "count") = int32_t(f.contents.entries.size());
  });
}

bp_status bp_safetensors_entry(bp_safetensors file, int32_t i, const char **name, int32_t *dtype, int32_t *rank,
                               int64_t *shape) {
  const char *fn = "bp_safetensors_entry";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    require(name, fn, "name"), require(dtype, fn, "dtype"), require(rank, fn, "rank"), require(shape, fn, "shape");
    const auto &entries = f.contents.entries;
    if (i < 0 || size_t(i) >= entries.size())
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + index_range("entry", i, entries.size()));
    const st::Entry &e = entries[size_t(i)];
    *name = e.name.c_str();
    *dtype = e.dtype;
    *rank = e.rank;
    std::copy(e.shape, e.shape + e.rank, shape);
  });
}

bp_status bp_safetensors_metadata_count(bp_safetensors file, int32_t *count) {
  const char *fn = "bp_safetensors_metadata_count";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    require(count, fn, "count") = int32_t(f.contents.metadata.size());
  });
}

bp_status bp_safetensors_metadata(bp_safetensors file, int32_t i, const char **key, const char **value) {
  const char *fn = "bp_safetensors_metadata";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    require(key, fn, "key"), require(value, fn, "value");
    const auto &meta = f.contents.metadata;
    if (i < 0 || size_t(i) >= meta.size())
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": " + index_range("metadata entry", i, meta.size()));
    *key = meta[size_t(i)].first.c_str();
    *value = meta[size_t(i)].second.c_str();
  });
}

bp_status bp_safetensors_load(bp_safetensors file, const char *name, bp_device device, bp_tensor *out) {
  const char *fn = "bp_safetensors_load";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    bp_tensor &o = require(out, fn, "out");
    const st::Entry &e = st::entry_named(fn, f, text_arg(fn, name, "name"));
    Device &d = device_or_throw(device);
    o = handles().insert(st::load(f, e, d));
  });
}

bp_status bp_safetensors_load_all(bp_safetensors file, bp_device device, bp_tensor *out, int32_t capacity) {
  const char *fn = "bp_safetensors_load_all";
  return with_file(fn, file, [&](const st::OpenFile &f) {
    const auto &entries = f.contents.entries;
    check_count(fn, "out", capacity, out);
    if (size_t(capacity) < entries.size())
      fail(BP_ERR_INVALID_ARGUMENT, std::string(fn) + ": capacity " + std::to_string(capacity) + " is less than the " +
                                        std::to_string(entries.size()) + " tensors of the file");
    Device &d = device_or_throw(device);
    // Every tensor is loaded before a handle is made, so a failure leaves none.
    std::vector<View> views;
    views.reserve(entries.size());
    for (const st::Entry &e : entries) views.push_back(st::load(f, e, d));
    for (size_t i = 0; i < views.size(); ++i) out[i] = handles().insert(std::move(views[i]));
  });
}

}  // extern "C"
