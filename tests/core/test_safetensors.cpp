// Saving and loading safetensors files through the C API and the C++
// header: every dtype on every device (each read through its own backend,
// nothing staged), the exact bytes of a small file, and each way a file
// can be truncated, malformed or hostile answered with BP_ERR_FORMAT naming
// the file, the offset and what is wrong. tests/python/test_safetensors.py
// checks the files against the `safetensors` package and PyTorch.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"
#include "scratch_dir.hpp"
#include "skip.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A file of the format: the header's length, the header, the data.
std::string file_of(const std::string &header, const std::string &data = "") {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[size_t(i)] = char((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

// n bytes of a fixed pattern that is a valid element sequence of dtype.
std::string pattern(bp_dtype dtype, size_t n) {
  std::string bytes(n * size_t(bp_dtype_size(dtype)), '\0');
  uint32_t x = 12345u + uint32_t(dtype);
  for (char &b : bytes) {
    x = x * 1103515245u + 12345u;
    b = char(x >> 24);
  }
  if (dtype == BP_BOOL)
    for (char &b : bytes) b = char(uint8_t(b) & 1);
  return bytes;
}

bp::Tensor tensor_of(bp_dtype dtype, const bp::Shape &shape, const std::string &bytes, const bp::Device &d) {
  return bp::Tensor::wrap([&](bp_tensor *o) {
    return bp_from_host(d.id(), dtype, int32_t(shape.size()), shape.data(), bytes.data(), o);
  });
}

std::string bytes_of(const bp::Tensor &t) {
  std::string out(size_t(t.numel()) * size_t(bp_dtype_size(t.dtype())), '\0');
  bp::check(bp_to_host(t.handle(), out.data(), out.size()));
  return out;
}

constexpr bp_dtype kEveryDtype[] = {BP_FLOAT64, BP_FLOAT32, BP_FLOAT16, BP_BFLOAT16, BP_INT64,
                                    BP_INT32,   BP_INT16,   BP_INT8,    BP_UINT8,    BP_BOOL};

// The backend of a device and its counters.
bp_backend_counters counters_of(const bp::Device &d) {
  bp_backend_counters c{};
  c.struct_size = sizeof c;
  bp::check(bp_backend_counters_get(d.info().backend, &c));
  return c;
}

// Opening bytes as a file: its status, and the message when it failed.
struct Opened {
  bp_status status;
  std::string message;
};

Opened open_bytes(const std::string &bytes) {
  bp_safetensors f = 0;
  const bp_status s = bp_safetensors_open_memory(bytes.data(), bytes.size(), &f);
  if (s == BP_OK) {
    REQUIRE(bp_safetensors_close(f) == BP_OK);
    return {s, ""};
  }
  return {s, bp_last_error()};
}

// bytes, malformed in one way, refused with BP_ERR_FORMAT whose message
// names the file and says each part of `says`; from memory and as a file.
void refused(const std::string &bytes, const std::vector<std::string> &says) {
  bp_test::start(bp_test::kHostOnly);
  const Opened m = open_bytes(bytes);
  INFO(m.message);
  CHECK(m.status == BP_ERR_FORMAT);
  CHECK(m.message.rfind("bp_safetensors_open_memory: <memory>: ", 0) == 0);
  for (const std::string &part : says) CHECK(m.message.find(part) != std::string::npos);
  bp_test::ScratchDir dir("bp-safetensors");
  const std::string path = dir.path() + "/bad.safetensors";
  write_file(path, bytes);
  bp_safetensors f = 0;
  CHECK(bp_safetensors_open(path.c_str(), &f) == BP_ERR_FORMAT);
  CHECK(f == 0);
  const std::string message = bp_last_error();
  CHECK(message.rfind("bp_safetensors_open: " + path + ": ", 0) == 0);
  for (const std::string &part : says) CHECK(message.find(part) != std::string::npos);
}

const std::string kOneF32 = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

}  // namespace

TEST_CASE("every dtype saved from a device loads back bit for bit onto every device, read through its backend") {
  const bp::Device d = bp_test::each_host_or_opencl_device();
  bp_test::ScratchDir dir("bp-safetensors");
  const std::string path = dir.path() + "/all.safetensors";
  bp::NamedTensors tensors;
  for (bp_dtype t : kEveryDtype) tensors.emplace_back(bp_dtype_name(t), tensor_of(t, {2, 3}, pattern(t, 6), d));
  // A rank-0 tensor, an empty one, and a transposed (strided) view.
  tensors.emplace_back("scalar", tensor_of(BP_FLOAT32, {}, pattern(BP_FLOAT32, 1), d));
  tensors.emplace_back("empty", tensor_of(BP_INT64, {0, 4}, "", d));
  const bp::Tensor base = tensor_of(BP_INT32, {2, 3}, pattern(BP_INT32, 6), d);
  tensors.emplace_back("transposed", base.T());
  const bp_backend_counters before = counters_of(d);
  bp::save_safetensors(path, tensors, {{"format", "pt"}, {"note", "ünïcödé"}});
  const bp_backend_counters after = counters_of(d);
  // Each tensor was read once through d's backend (the strided view as a
  // dense copy made on d), and nothing was staged through another backend.
  uint64_t data_bytes = 0;
  for (const auto &[name, t] : tensors) data_bytes += uint64_t(t.numel()) * uint64_t(bp_dtype_size(t.dtype()));
  CHECK(after.bytes_device_to_host - before.bytes_device_to_host == data_bytes);
  CHECK(after.staged_copies == before.staged_copies);

  const bp::SafetensorsFile file = bp::SafetensorsFile::open(path);
  CHECK(file.metadata() == bp::Metadata{{"format", "pt"}, {"note", "ünïcödé"}});
  const auto entries = file.entries();
  REQUIRE(entries.size() == tensors.size());
  for (size_t i = 1; i < entries.size(); ++i) CHECK(entries[i - 1].name < entries[i].name);
  for (const bp::Device &onto : {d, bp::Device(std::string("cpu:0")), bp::Device(std::string("reference:0"))}) {
    INFO("saved on " << d.name() << ", loaded onto " << onto.name());
    const auto loaded = file.load_all(onto);
    for (const auto &[name, t] : tensors) {
      INFO(name);
      const bp::Tensor &back = loaded.at(name);
      CHECK(back.device() == onto);
      CHECK(back.dtype() == t.dtype());
      CHECK(back.shape() == t.shape());
      CHECK(bytes_of(back) == bytes_of(t));
    }
  }
  CHECK(bytes_of(file.load("transposed", d)) == bytes_of(base.T().contiguous()));
}

TEST_CASE("a tensor saved on a CUDA device loads back bit for bit on cpu:0 and on it") {
  bp_test::start("[devices]\nfallback = [\"cpu\"]\n[backend.cpu-openblas]\nthreads = 1\n");
  bp_device id = -1;
  if (bp_device_get("cuda:0", &id) != BP_OK) {
    bp_test::skip(std::string("no CUDA device here: ") + bp_last_error());
    return;
  }
  const bp::Device cuda(id), cpu(std::string("cpu:0"));
  bp::NamedTensors tensors;
  for (bp_dtype t : kEveryDtype) tensors.emplace_back(bp_dtype_name(t), tensor_of(t, {3, 2}, pattern(t, 6), cuda));
  const std::string bytes = bp::safetensors_bytes(tensors);
  const bp::SafetensorsFile file = bp::SafetensorsFile::from_bytes(bytes);
  for (const bp::Device &onto : {cuda, cpu}) {
    const auto loaded = file.load_all(onto);
    for (const auto &[name, t] : tensors) CHECK(bytes_of(loaded.at(name)) == bytes_of(t));
  }
}

TEST_CASE("a saved file is the format byte for byte: padded header, data by element size then name") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Device cpu(std::string("cpu:0"));
  const std::vector<float> w = {1.0f, -2.0f};
  const std::vector<int8_t> m = {7};
  const std::vector<double> z = {0.5};
  const bp::Tensor tw = bp::from_vector<float>(w, {2}, cpu);
  const bp::Tensor tm = tensor_of(BP_INT8, {1}, std::string(1, char(7)), cpu);
  const bp::Tensor tz = bp::from_vector<double>(z, {1, 1}, cpu);
  const std::string bytes = bp::safetensors_bytes({{"w", tw}, {"m", tm}, {"z", tz}}, {{"k", "v"}});
  const std::string header =
      R"({"__metadata__":{"k":"v"},"z":{"dtype":"F64","shape":[1,1],"data_offsets":[0,8]},)"
      R"("w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"m":{"dtype":"I8","shape":[1],"data_offsets":[16,17]}})";
  const std::string padded = header + std::string((8 - header.size() % 8) % 8, ' ');
  std::string data(17, '\0');
  std::memcpy(&data[0], z.data(), 8);
  std::memcpy(&data[8], w.data(), 8);
  data[16] = 7;
  CHECK(bytes == file_of(padded, data));
  CHECK((8 + padded.size()) % 8 == 0);
  // And the file the path form writes is the same.
  bp_test::ScratchDir dir("bp-safetensors");
  bp::save_safetensors(dir.path() + "/x.safetensors", {{"w", tw}, {"m", tm}, {"z", tz}}, {{"k", "v"}});
  CHECK(read_file(dir.path() + "/x.safetensors") == bytes);
}

TEST_CASE("a file written by hand to the format loads: offsets, metadata, trailing spaces, empty tensors") {
  bp_test::start(bp_test::kHostOnly);
  const float values[2] = {3.5f, -1.25f};
  const std::string header = R"({"__metadata__":{"a":"b"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("e":{"shape":[0,3],"dtype":"BF16","data_offsets":[8,8],"extra":1}}   )";
  const std::string bytes = file_of(header, std::string(reinterpret_cast<const char *>(values), 8));
  const bp::SafetensorsFile file = bp::SafetensorsFile::from_bytes(bytes);
  const auto entries = file.entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].name == "e");
  CHECK(entries[0].dtype == BP_BFLOAT16);
  CHECK(entries[0].shape == bp::Shape{0, 3});
  CHECK(entries[1].name == "x");
  CHECK(file.metadata() == bp::Metadata{{"a", "b"}});
  CHECK(file.load("x", bp::Device(std::string("reference:0"))).to_vector<float>() == std::vector<float>{3.5f, -1.25f});
  CHECK(file.load("e").numel() == 0);
}

TEST_CASE("a truncated file is refused with the offset and what is missing") {
  refused("", {"the file is 0 bytes, too short for the 8-byte header length at offset 0"});
  refused(std::string("\x05\x00\x00", 3), {"the file is 3 bytes"});
  // The header's length says more than the file holds.
  refused(file_of(kOneF32).substr(0, 30), {"the header length at offset 0 is 54 bytes, but only 22 bytes follow it"});
  // The data stops short: the tensor reaches past the end.
  refused(file_of(kOneF32, "1234"),
          {"tensor 'a': its data_offsets [0, 8] reach past the end of the file", "holds 4 bytes (file offsets 62..66)"});
}

TEST_CASE("an oversized header length is refused before anything is read") {
  std::string huge = file_of(kOneF32);
  const uint64_t length = 100000001;
  for (int i = 0; i < 8; ++i) huge[size_t(i)] = char((length >> (8 * i)) & 0xFF);
  refused(huge, {"the header length at offset 0 is 100000001 bytes, more than the format's limit of 100000000"});
  refused(std::string("\xff\xff\xff\xff\xff\xff\xff\xff{}", 10), {"18446744073709551615 bytes"});
}

TEST_CASE("a header that is not a JSON object of UTF-8 text is refused at the offset of the fault") {
  refused(file_of("[1,2]"), {"at offset 8: the header does not start with '{'", "0x5B '['"});
  refused(file_of(""), {"at offset 8", "nothing (its length is 0)"});
  refused(file_of(R"({"a":{"dtype":"F32",}})"), {"at offset 28 (header byte 20): the header is not valid JSON"});
  refused(file_of("{\"a\xff\":1}"), {"at offset 11 (header byte 3)", "ill-formed UTF-8", "(the byte there is 0xFF)"});
  refused(file_of(R"({"a":{}} x)"), {"at offset 17 (header byte 9)", "expected end of input"});
  refused(file_of(R"({"a":{"shape":[[[1]]]}})"), {"nests JSON deeper than the format's entries do"});
  refused(file_of(R"({"a":{"shape":[1e999]}})"),
          {"at offset 23 (header byte 15): the header is not valid JSON: the number 1e999 is out of a double's range"});
  refused(file_of(R"({"a":{}} )" + std::string(1, '\0') + "x"), {"at offset 17 (header byte 9)", "a NUL byte"});
}

TEST_CASE("each malformed entry is refused naming the tensor and what is wrong") {
  refused(file_of(R"({"a":5})"), {"tensor 'a': its entry is 5, not an object"});
  refused(file_of(R"({"a":{"shape":[2],"data_offsets":[0,8]}})"), {"tensor 'a': its entry lacks \"dtype\""});
  refused(file_of(R"({"a":{"dtype":7,"shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"tensor 'a': its dtype is 7, not a string"});
  refused(file_of(R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"tensor 'a': its dtype 'F33' is no dtype of the format", "Backplane reads F64, F32, F16, BF16"});
  refused(file_of(R"({"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"tensor 'a': its dtype U16 is one Backplane has no dtype for"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"tensor 'a': extent 0 of its shape is -2, not an unsigned integer"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"extent 0 of its shape is 2.0"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})", std::string(4, '\0')),
          {"tensor 'a': its shape has 9 axes, more than Backplane's 8"});
  refused(file_of(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,1]}})", "x"),
          {"has more than 2^56 elements"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})"),
          {"tensor 'a': its data_offsets are [0], not two unsigned integers"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", std::string(8, '\0')),
          {"tensor 'a': its data_offsets [8, 0] end before they begin"});
  refused(file_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", std::string(8, '\0')),
          {"tensor 'a': its shape [3] of F32 is 12 bytes, but its data_offsets [0, 8] hold 8"});
  refused(file_of("{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", "x"),
          {"the name holds a NUL character"});
}

TEST_CASE("names given twice, bad metadata and data that is not packed are refused") {
  refused(file_of(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", "xy"),
          {"the header names 'a' twice"});
  refused(file_of(R"({"a":{"dtype":"U8","dtype":"I8","shape":[1],"data_offsets":[0,1]}})", "x"),
          {"the entry of 'a' has the key 'dtype' twice"});
  refused(file_of(R"({"__metadata__":{"k":1}})"), {"__metadata__ entry 'k' is 1, not a string"});
  refused(file_of(R"({"__metadata__":[]})"), {"its __metadata__ is [], not an object of strings"});
  const std::string two = R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})";
  refused(file_of(two, "abcdef"), {"tensor 'b' (data bytes 2..6, file offsets", "overlaps tensor 'a' (data bytes 0..4)"});
  const std::string gap = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]}})";
  refused(file_of(gap, "abcdef"), {"data bytes 2..4 (file offsets", "belong to no tensor"});
  refused(file_of(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", "abcd"), {"data bytes 0..2"});
  refused(file_of(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", "abcd"),
          {"the file has 2 bytes after the last tensor's data"});
}

TEST_CASE("a path that cannot be read or written is BP_ERR_IO naming it, and a failed save leaves the old file") {
  bp_test::start(bp_test::kHostOnly);
  bp_test::ScratchDir dir("bp-safetensors");
  bp_safetensors f = 0;
  const std::string missing = dir.path() + "/missing.safetensors";
  CHECK(bp_safetensors_open(missing.c_str(), &f) == BP_ERR_IO);
  CHECK(bp_last_error() == "bp_safetensors_open: " + missing + ": cannot open it: No such file or directory");
  CHECK(bp_safetensors_open(dir.path().c_str(), &f) == BP_ERR_IO);
  CHECK(bp_test::last_error_mentions("not a regular file"));

  const bp::Tensor t = bp::ones({3});
  const std::string path = dir.path() + "/model.safetensors";
  bp::save_safetensors(path, {{"t", t}});
  const std::string before = read_file(path);
  // Refused before the file is touched: a bad handle, a name twice.
  bp_named_tensor bad[2] = {{"t", t.handle()}, {"u", BP_NO_TENSOR}};
  CHECK(bp_safetensors_save(path.c_str(), bad, 2, nullptr, 0) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_test::last_error_mentions("bp_safetensors_save: tensors[1].tensor is a null tensor handle"));
  bp_named_tensor twice[2] = {{"t", t.handle()}, {"t", t.handle()}};
  CHECK(bp_safetensors_save(path.c_str(), twice, 2, nullptr, 0) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("the name 't' is given twice"));
  // Refused while replacing: the path is a directory.
  const std::string sub = dir.path() + "/sub";
  fs::create_directory(sub);
  bp_named_tensor one[1] = {{"t", t.handle()}};
  CHECK(bp_safetensors_save(sub.c_str(), one, 1, nullptr, 0) == BP_ERR_IO);
  CHECK(bp_test::last_error_mentions("cannot replace it with the file written: Is a directory"));
  const std::string nowhere = dir.path() + "/no/such/dir/x.safetensors";
  CHECK(bp_safetensors_save(nowhere.c_str(), one, 1, nullptr, 0) == BP_ERR_IO);
  CHECK(bp_test::last_error_mentions("cannot create"));
  CHECK(read_file(path) == before);
  // No temporary file is left behind.
  size_t files = 0;
  for (const auto &e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  CHECK(files == 1);
}

TEST_CASE("bad names, metadata and arguments of a save are refused naming the entry") {
  bp_test::start(bp_test::kHostOnly);
  const bp::Tensor t = bp::ones({2});
  auto write_status = [&](std::vector<bp_named_tensor> named, std::vector<bp_metadata_entry> meta) {
    auto sink = [](void *, const void *, uint64_t) -> int32_t { return 0; };
    return bp_safetensors_write(sink, nullptr, named.data(), int32_t(named.size()), meta.data(), int32_t(meta.size()));
  };
  CHECK(write_status({{"__metadata__", t.handle()}}, {}) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("tensor 0 is called '__metadata__'"));
  CHECK(write_status({{"bad\xff", t.handle()}}, {}) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("the name of tensor 0 'bad\\xFF' is not UTF-8 text"));
  CHECK(write_status({{nullptr, t.handle()}}, {}) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("tensors[0].name is NULL"));
  CHECK(write_status({}, {{"k", "v"}, {"k", "w"}}) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("the metadata key 'k' is given twice"));
  CHECK(write_status({}, {{"k", nullptr}}) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("metadata[0].value is NULL"));
  CHECK(bp_safetensors_write(nullptr, nullptr, nullptr, 0, nullptr, 0) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_safetensors_save("x", nullptr, 1, nullptr, 0) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("tensors is NULL"));
  CHECK(bp_safetensors_save("x", nullptr, -1, nullptr, 0) == BP_ERR_INVALID_ARGUMENT);
  // A write function that fails stops the write at its bytes.
  bp_named_tensor one[1] = {{"t", t.handle()}};
  int calls = 0;
  auto failing = [](void *c, const void *, uint64_t) -> int32_t { return ++*static_cast<int *>(c) == 2 ? 1 : 0; };
  CHECK(bp_safetensors_write(failing, &calls, one, 1, nullptr, 0) == BP_ERR_IO);
  CHECK(bp_test::last_error_mentions("bp_safetensors_write: the write function failed on bytes 8.."));
  CHECK(calls == 2);
}

TEST_CASE("closed, zero and invented file handles and bad indices give statuses, never a crash") {
  bp_test::start(bp_test::kHostOnly);
  const std::string bytes = file_of(kOneF32, std::string(8, '\0'));
  bp_safetensors f = 0;
  REQUIRE(bp_safetensors_open_memory(bytes.data(), bytes.size(), &f) == BP_OK);
  int32_t n = -1;
  CHECK(bp_safetensors_count(f, &n) == BP_OK);
  CHECK(n == 1);
  const char *name = nullptr;
  int32_t dtype = 0, rank = 0;
  int64_t shape[BP_MAX_RANK];
  CHECK(bp_safetensors_entry(f, 1, &name, &dtype, &rank, shape) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_safetensors_entry(f, 0, nullptr, &dtype, &rank, shape) == BP_ERR_INVALID_ARGUMENT);
  const char *key = nullptr, *value = nullptr;
  CHECK(bp_safetensors_metadata(f, 0, &key, &value) == BP_ERR_INVALID_ARGUMENT);
  bp_tensor t = BP_NO_TENSOR;
  CHECK(bp_safetensors_load(f, "b", 0, &t) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("bp_safetensors_load: <memory> holds no tensor 'b'"));
  CHECK(bp_safetensors_load(f, "a", 9999, &t) == BP_ERR_INVALID_HANDLE);
  bp_tensor outs[1] = {BP_NO_TENSOR};
  CHECK(bp_safetensors_load_all(f, 0, outs, 0) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_test::last_error_mentions("capacity 0 is less than the 1 tensors"));
  CHECK(outs[0] == BP_NO_TENSOR);
  const int64_t live = bp_live_tensor_count();
  CHECK(bp_safetensors_load_all(f, 0, outs, 1) == BP_OK);
  CHECK(bp_live_tensor_count() == live + 1);
  CHECK(bp_tensor_release(outs[0]) == BP_OK);
  CHECK(bp_safetensors_close(f) == BP_OK);
  CHECK(bp_safetensors_close(f) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_test::last_error_mentions("is no open safetensors file (closed or never opened)"));
  CHECK(bp_safetensors_count(f, &n) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_safetensors_count(0, &n) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_safetensors_load(123456789, "a", 0, &t) == BP_ERR_INVALID_HANDLE);
  CHECK(bp_safetensors_open_memory(nullptr, 4, &f) == BP_ERR_INVALID_ARGUMENT);
  CHECK(bp_safetensors_open(nullptr, &f) == BP_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a file truncated after it was opened makes a load fail with BP_ERR_IO, never read past its end") {
  bp_test::start(bp_test::kHostOnly);
  bp_test::ScratchDir dir("bp-safetensors");
  const std::string path = dir.path() + "/shrinks.safetensors";
  write_file(path, file_of(kOneF32, std::string(8, '\0')));
  bp_safetensors f = 0;
  REQUIRE(bp_safetensors_open(path.c_str(), &f) == BP_OK);
  REQUIRE(::truncate(path.c_str(), 66) == 0);
  bp_tensor t = BP_NO_TENSOR;
  CHECK(bp_safetensors_load(f, "a", 0, &t) == BP_ERR_IO);
  CHECK(bp_test::last_error_mentions("the file ends at offset 66 while reading tensor 'a' (bytes 62..70): it "
                                     "changed after it was opened"));
  CHECK(t == BP_NO_TENSOR);
  CHECK(bp_safetensors_close(f) == BP_OK);
}
