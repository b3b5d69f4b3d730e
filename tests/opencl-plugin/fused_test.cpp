// execute_fused against execute: every output of a fused program must be,
// bit for bit, what the same instructions leave when run one by one through
// the plugin's execute into temporaries. Every family and dtype, scalar
// operands on either side, strided, broadcast, rank 0 and empty views,
// several outputs and an output in place; the kernel caches in memory and on
// disk (option kernel_cache); refusals that write nothing.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "opencl_test.hpp"
#include "scratch_dir.hpp"

using namespace ocl_test;

namespace {

struct Instr {
  int32_t op, dtype, out_dtype;
  std::vector<int32_t> args;  // value numbers
  int32_t scalar_mode = BP_SCALAR_NONE;
  double scalar = 0;
};

struct Program {
  std::string name;
  Shape shape;
  std::vector<Tensor> inputs;
  std::vector<Instr> instrs;
  std::vector<int32_t> outputs;  // value numbers
  int in_place_input = -1;       // output 0 is this (dense) input's very view
};

int32_t value_dtype(const Program &p, int32_t v) {
  const auto n = static_cast<int32_t>(p.inputs.size());
  return v < n ? p.inputs[static_cast<size_t>(v)].dtype : p.instrs[static_cast<size_t>(v - n)].out_dtype;
}

bp_fused_instr abi_instr(const Instr &in) {
  return fused_instr(in.op, in.dtype, in.out_dtype, in.args, in.scalar_mode, in.scalar);
}

// The plugin with the fused-kernel cache where a test wants it: init with
// other options than the last starts the backend over (no buffer is alive
// between tests), with empty kernel caches.
PluginHandle open_plugin(const std::string &kernel_cache, const std::string &fp64 = "auto") {
  return PluginHandle("opencl", {{"kernel_cache", kernel_cache}, {"fp64", fp64}});
}

struct Run {
  bp_status status = BP_OK;
  std::string message;
  std::vector<Bytes> outputs;  // whole output buffers
};

// The program through execute_fused; outputs start as 0xA5 sentinels.
Run run_fused(const PluginHandle &p, const Program &prog, int32_t device = 0) {
  Buffers b(p, device);
  std::vector<bp_plugin_tensor> inputs, outputs;
  for (const Tensor &t : prog.inputs) inputs.push_back(b.view(t));
  for (size_t j = 0; j < prog.outputs.size(); ++j) {
    const auto dtype = static_cast<bp_dtype>(value_dtype(prog, prog.outputs[j]));
    outputs.push_back(j == 0 && prog.in_place_input >= 0 ? inputs[static_cast<size_t>(prog.in_place_input)]
                                                          : b.view(sentinel_output(dtype, dense(prog.shape))));
  }
  std::vector<bp_fused_instr> instrs;
  for (const Instr &in : prog.instrs) instrs.push_back(abi_instr(in));
  const bp_fused_program program = fused_program(inputs, instrs, outputs, prog.outputs);
  Run run;
  run.status = p.api().execute_fused(device, &program);
  if (run.status != BP_OK) run.message = p.api().last_error();
  for (size_t j = 0; j < outputs.size(); ++j) {
    const size_t bytes = j == 0 && prog.in_place_input >= 0
                             ? prog.inputs[static_cast<size_t>(prog.in_place_input)].bytes.size()
                             : static_cast<size_t>(numel(prog.shape) * dtype_size(outputs[j].dtype));
    run.outputs.push_back(p.download<uint8_t>(outputs[j].buffer, bytes));
  }
  return run;
}

// Input `t`'s elements in C order, as stored.
Bytes c_order(const Tensor &t) {
  const auto size = static_cast<size_t>(dtype_size(t.dtype));
  Bytes out;
  const int64_t n = numel(t.layout.shape);
  std::vector<int64_t> index(t.layout.shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t at = t.layout.offset;
    for (size_t d = 0; d < index.size(); ++d) at += index[d] * t.layout.strides[d];
    out.insert(out.end(), t.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(at) * size),
               t.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(at + 1) * size));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t.layout.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// The outputs' values (C order) the instructions leave run one by one.
std::vector<Bytes> run_op_by_op(const PluginHandle &p, const Program &prog, int32_t device = 0) {
  Buffers b(p, device);
  std::vector<bp_plugin_tensor> values;
  for (const Tensor &t : prog.inputs) values.push_back(b.view(t));
  for (const Instr &in : prog.instrs) {
    std::vector<bp_plugin_tensor> operands;
    for (int32_t v : in.args) operands.push_back(values[static_cast<size_t>(v)]);
    const bp_plugin_tensor out = b.view(sentinel_output(static_cast<bp_dtype>(in.out_dtype), dense(prog.shape)));
    bp_op_attrs attrs = default_attrs();
    attrs.scalar_mode = in.scalar_mode;
    attrs.scalar = in.scalar;
    b.exec(in.op, operands, out, attrs);
    values.push_back(out);
  }
  std::vector<Bytes> outputs;
  const auto n_inputs = static_cast<int32_t>(prog.inputs.size());
  for (int32_t v : prog.outputs) {
    if (v < n_inputs) {
      outputs.push_back(c_order(prog.inputs[static_cast<size_t>(v)]));
      continue;
    }
    const bp_plugin_tensor &t = values[static_cast<size_t>(v)];
    outputs.push_back(p.download<uint8_t>(t.buffer, static_cast<size_t>(numel(prog.shape) * dtype_size(t.dtype))));
  }
  return outputs;
}

void check_fused(const PluginHandle &p, const Program &prog, int32_t device = 0) {
  INFO(prog.name << " on opencl:" << device);
  const Run fused = run_fused(p, prog, device);
  INFO(fused.message);
  REQUIRE(fused.status == BP_OK);
  const std::vector<Bytes> expected = run_op_by_op(p, prog, device);
  for (size_t j = 0; j < expected.size(); ++j) {
    INFO("output " << j);
    check_buffers(value_dtype(prog, prog.outputs[j]), fused.outputs[j], expected[j], kExact, "fused");
  }
}

// Views of the program shape {3, 5}, in every form the core passes.
std::vector<Layout> input_forms() {
  return {dense(Shape{3, 5}), strided({3, 5}, {1, 3}), strided({3, 5}, {12, 2}, 1), strided({3, 5}, {0, 1}),
          strided({3, 5}, {0, 0}, 1)};
}

double scalar_for(int32_t dtype) { return dtype == BP_BOOL ? 1 : is_float(dtype) ? 1.5 : 3; }

std::vector<int32_t> ops_of(std::initializer_list<int32_t> families) {
  std::vector<int32_t> ops;
  for (int32_t family : families)
    for (bp_op op : ops_in(family)) ops.push_back(op);
  return ops;
}

bool has_opencl(const PluginHandle &p) { return has_device(p, "OpenCL"); }

// device_properties' numeric value for `key`.
int64_t property(const PluginHandle &p, int32_t device, const std::string &key) {
  bp_property props[32];
  int32_t count = 0;
  p.check(p.api().device_properties(device, props, 32, &count), "device_properties");
  for (int32_t i = 0; i < count; ++i)
    if (key == props[i].key) return std::stoll(props[i].value);
  FAIL("no property " << key);
  return -1;
}

// A float32 chain with a scalar, the example: y = x ** 2 - s; z = y ** 3 - 0.2.
Program chain(double s, std::mt19937_64 &rng, const Layout &layout = dense(Shape{3, 5})) {
  Program prog{"pow/sub chain", layout.shape, {random_tensor(BP_FLOAT32, layout, rng, Values::general)}, {}, {}};
  prog.instrs = {{BP_OP_POW, BP_FLOAT32, BP_FLOAT32, {0}, BP_SCALAR_RHS, 2.0},
                 {BP_OP_SUB, BP_FLOAT32, BP_FLOAT32, {1}, BP_SCALAR_RHS, s},
                 {BP_OP_POW, BP_FLOAT32, BP_FLOAT32, {2}, BP_SCALAR_RHS, 3.0},
                 {BP_OP_SUB, BP_FLOAT32, BP_FLOAT32, {3}, BP_SCALAR_RHS, 0.2}};
  prog.outputs = {4};
  return prog;
}

// The files the disk cache holds in `dir`.
std::vector<std::string> cache_files(const std::string &dir) {
  std::vector<std::string> files;
  if (DIR *d = opendir(dir.c_str())) {
    while (const dirent *e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") files.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  return files;
}

}  // namespace

TEST_CASE("fused binary and comparison operators match execute for every dtype with scalars on either side", "[fused][sweep]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(11);
  const std::vector<Layout> forms = input_forms();
  size_t form = 0;
  for (int32_t dtype : kAllTypes)
    for (int32_t op : ops_of({BP_OP_FAMILY_BINARY, BP_OP_FAMILY_COMPARE})) {
      const int32_t out = bp_vocab_out_dtype(op, dtype);
      if (!supported(p, op, dtype, out)) continue;
      // Inputs in changing forms: contiguous, transposed, sliced, broadcast.
      const Layout &a = forms[form++ % forms.size()];
      const Layout &b = forms[form % forms.size()];
      const double s = scalar_for(dtype);
      Program prog{std::string(bp_vocab_op_name(op)) + " " + dtype_name(dtype) + ", inputs " + a.describe() +
                       " and " + b.describe(),
                   {3, 5},
                   {random_tensor(static_cast<bp_dtype>(dtype), a, rng, Values::general),
                    random_tensor(static_cast<bp_dtype>(dtype), b, rng, Values::general)},
                   {{op, dtype, out, {0, 1}},
                    {op, dtype, out, {0}, BP_SCALAR_RHS, s},
                    {op, dtype, out, {1}, BP_SCALAR_LHS, s}},
                   {2, 3, 4}};
      check_fused(p, prog, static_cast<int32_t>(form % 2));
    }
}

TEST_CASE("fused unary operators and copies and where match execute for every dtype", "[fused]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(12);
  for (int32_t dtype : kAllTypes) {
    const auto dt = static_cast<bp_dtype>(dtype);
    // Each unary operator on one strided input, up to eight per program
    // (ISNAN and ISINF write bool).
    std::vector<int32_t> unary;
    for (int32_t op : ops_of({BP_OP_FAMILY_UNARY}))
      if (supported(p, op, dtype, bp_vocab_out_dtype(op, dtype))) unary.push_back(op);
    for (size_t first = 0; first < unary.size(); first += BP_FUSED_MAX_OUTPUTS) {
      Program prog{std::string("unary operators on ") + dtype_name(dtype), {3, 5},
                   {random_tensor(dt, strided({3, 5}, {1, 3}), rng, Values::general)}, {}, {}};
      for (size_t i = first; i < unary.size() && i < first + BP_FUSED_MAX_OUTPUTS; ++i) {
        prog.outputs.push_back(static_cast<int32_t>(1 + prog.instrs.size()));
        prog.instrs.push_back({unary[i], dtype, bp_vocab_out_dtype(unary[i], dtype), {0}});
      }
      check_fused(p, prog);
    }
    // A conversion to every dtype, up to eight per program.
    std::vector<int32_t> targets;
    for (int32_t to : kAllTypes)
      if (supported(p, BP_OP_COPY, dtype, to)) targets.push_back(to);
    for (size_t first = 0; first < targets.size(); first += BP_FUSED_MAX_OUTPUTS) {
      Program copies{std::string("copies of ") + dtype_name(dtype), {3, 5},
                     {random_tensor(dt, dense(Shape{3, 5}), rng, Values::general)}, {}, {}};
      for (size_t i = first; i < targets.size() && i < first + BP_FUSED_MAX_OUTPUTS; ++i) {
        copies.outputs.push_back(static_cast<int32_t>(1 + copies.instrs.size()));
        copies.instrs.push_back({BP_OP_COPY, dtype, targets[i], {0}});
      }
      check_fused(p, copies, 1);
    }
    // WHERE with a broadcast condition.
    Program where{std::string("where on ") + dtype_name(dtype), {3, 5},
                  {random_tensor(BP_BOOL, strided({3, 5}, {1, 0}), rng), random_tensor(dt, dense(Shape{3, 5}), rng),
                   random_tensor(dt, strided({3, 5}, {0, 1}), rng)},
                  {{BP_OP_WHERE, dtype, dtype, {0, 1, 2}}},
                  {3}};
    check_fused(p, where);
  }
}

TEST_CASE("a fused program mixing dtypes with several outputs matches execute for every view form", "[fused]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(13);
  // x float32, k int32, c bool: y = x**2 - 0.5; m = y > 0; w = where(m, y, x);
  // i = int32(w); j = i // k; d = float64(y) * 0.1; outputs w, j, m, d and x itself.
  const std::vector<std::pair<std::string, std::vector<Layout>>> cases = {
      {"contiguous", {dense(Shape{4, 6}), dense(Shape{4, 6})}},
      {"strided and broadcast", {strided({4, 6}, {1, 4}), strided({4, 6}, {0, 1})}},
      {"one scalar-broadcast", {strided({4, 6}, {0, 0}, 3), dense(Shape{4, 6})}},
      {"rank 4 permuted", {strided({2, 3, 2, 2}, {6, 1, 12, 3}), strided({2, 3, 2, 2}, {0, 4, 2, 1})}},
      {"rank 0", {strided({}, {}, 1), strided({}, {}, 2)}},
      {"empty", {dense(Shape{0, 4}), dense(Shape{0, 4})}},
  };
  int32_t device = 0;
  for (const auto &c : cases) {
    Program prog{"mixed dtypes, " + c.first, c.second[0].shape,
                 {random_tensor(BP_FLOAT32, c.second[0], rng, Values::general),
                  random_tensor(BP_INT32, c.second[1], rng, Values::general)},
                 {{BP_OP_POW, BP_FLOAT32, BP_FLOAT32, {0}, BP_SCALAR_RHS, 2.0},
                  {BP_OP_SUB, BP_FLOAT32, BP_FLOAT32, {2}, BP_SCALAR_RHS, 0.5},
                  {BP_OP_GT, BP_FLOAT32, BP_BOOL, {3}, BP_SCALAR_RHS, 0.0},
                  {BP_OP_WHERE, BP_FLOAT32, BP_FLOAT32, {4, 3, 0}},
                  {BP_OP_COPY, BP_FLOAT32, BP_INT32, {5}},
                  {BP_OP_FLOOR_DIVIDE, BP_INT32, BP_INT32, {6, 1}},
                  {BP_OP_COPY, BP_FLOAT32, BP_FLOAT64, {3}},
                  {BP_OP_MUL, BP_FLOAT64, BP_FLOAT64, {8}, BP_SCALAR_RHS, 0.1}},
                 {5, 7, 4, 9, 0}};
    check_fused(p, prog, device);
    device = 1 - device;
  }
}

TEST_CASE("a fused chain of float16 or bfloat16 rounds each instruction's result as execute does", "[fused]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(17);
  for (int32_t dtype : {BP_FLOAT16, BP_BFLOAT16}) {
    const auto dt = static_cast<bp_dtype>(dtype);
    const int32_t other = dtype == BP_FLOAT16 ? BP_BFLOAT16 : BP_FLOAT16;
    // v2 = x + x; v3 = v2 * (1/3); v4 = sqrt(v3); v5 = float32(v3); v6 = half(d);
    // v7 = v6 - v3; v8 = maximum(v7, v4); v9 = the other half(v8). Every
    // result a half, so a kernel that kept float32 between instructions would differ.
    Program prog{std::string("a chain of ") + dtype_name(dtype), {4, 6},
                 {random_tensor(dt, dense(Shape{4, 6}), rng, Values::general),
                  random_tensor(BP_FLOAT64, strided({4, 6}, {1, 4}), rng, Values::general)},
                 {{BP_OP_ADD, dtype, dtype, {0, 0}},
                  {BP_OP_MUL, dtype, dtype, {2}, BP_SCALAR_RHS, 1.0 / 3},
                  {BP_OP_SQRT, dtype, dtype, {3}},
                  {BP_OP_COPY, dtype, BP_FLOAT32, {3}},
                  {BP_OP_COPY, BP_FLOAT64, dtype, {1}},
                  {BP_OP_SUB, dtype, dtype, {6, 3}},
                  {BP_OP_MAXIMUM, dtype, dtype, {7, 4}},
                  {BP_OP_COPY, dtype, other, {8}}},
                 {4, 5, 7, 8, 9}};
    check_fused(p, prog);
  }
}

TEST_CASE("a fused program may write its output over an input (in place)", "[fused]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(14);
  Program prog = chain(0.5, rng, dense(Shape{257}));
  prog.name = "the chain in place";
  prog.instrs.push_back({BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, {4, 0}});  // reads x after z is known
  prog.outputs = {5, 4};
  prog.in_place_input = 0;
  check_fused(p, prog);
}

TEST_CASE("fused kernels are cached in memory so new scalars and views build nothing", "[fused]") {
  const PluginHandle p = open_plugin("");
  if (!has_opencl(p)) return;
  std::mt19937_64 rng(15);
  check_fused(p, chain(0.5, rng));
  const int64_t built = property(p, 0, "fused_kernels_built");
  CHECK(built >= 1);
  // Other scalar values, other data, another contiguous shape: the same kernel.
  check_fused(p, chain(-7.25, rng));
  check_fused(p, chain(0.125, rng, strided({100}, {1}, 5)));
  CHECK(property(p, 0, "fused_kernels_built") == built);
  // A strided input is another kernel.
  check_fused(p, chain(0.5, rng, strided({3, 5}, {1, 3})));
  CHECK(property(p, 0, "fused_kernels_built") == built + 1);
  CHECK(property(p, 0, "fused_kernels_loaded") == 0);
}

TEST_CASE("fused kernels are kept on disk and a damaged cache file is ignored", "[fused]") {
  const ScratchDir dir("bp-fused-cache");
  std::mt19937_64 rng(16);
  {
    const PluginHandle p = open_plugin(dir.path());
    if (!has_opencl(p)) return;
    check_fused(p, chain(0.5, rng));
    CHECK(property(p, 0, "fused_kernels_built") == 1);
  }
  const std::vector<std::string> files = cache_files(dir.path());
  REQUIRE(files.size() == 1);  // the binary, and no temporary file left behind

  // A new backend (init with other options, then these again) starts with
  // an empty memory cache: it loads the binary instead of compiling.
  open_plugin("");
  {
    const PluginHandle p = open_plugin(dir.path());
    check_fused(p, chain(3.0, rng));
    CHECK(property(p, 0, "fused_kernels_built") == 0);
    CHECK(property(p, 0, "fused_kernels_loaded") == 1);
  }

  // A byte flipped, then a file cut short: compiled again, results right.
  for (const std::string damage : {"flipped", "truncated"}) {
    INFO(damage << " cache file");
    std::string bytes;
    {
      std::ifstream in(files[0], std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    REQUIRE(bytes.size() > 64);
    if (damage == std::string("flipped")) bytes[bytes.size() - 20] = static_cast<char>(bytes[bytes.size() - 20] ^ 0x5a);
    else bytes.resize(bytes.size() / 2);
    std::ofstream(files[0], std::ios::binary | std::ios::trunc) << bytes;
    open_plugin("");
    const PluginHandle p = open_plugin(dir.path());
    check_fused(p, chain(0.25, rng));
    CHECK(property(p, 0, "fused_kernels_built") == 1);
    CHECK(property(p, 0, "fused_kernels_loaded") == 0);
  }
  // The rebuilt kernel replaced the damaged file.
  open_plugin("");
  {
    const PluginHandle p = open_plugin(dir.path());
    check_fused(p, chain(0.75, rng));
    CHECK(property(p, 0, "fused_kernels_loaded") == 1);
  }

  // A directory that cannot be made: no cache, and no error.
  const PluginHandle p = open_plugin("/proc/backplane-no-such-dir/cache");
  check_fused(p, chain(0.5, rng));
  CHECK(property(p, 0, "fused_kernels_built") == 1);
}

TEST_CASE("execute_fused refuses what it cannot run and malformed programs writing nothing", "[fused]") {
  std::mt19937_64 rng(17);
  {
    // float64 on a device without it: unsupported, so the core runs the
    // instructions one by one (and they too are refused there).
    const PluginHandle p = open_plugin("", "off");
    if (!has_opencl(p)) return;
    Program prog{"float64 with fp64 off", {8}, {random_tensor(BP_FLOAT32, dense(Shape{8}), rng)},
                 {{BP_OP_COPY, BP_FLOAT32, BP_FLOAT64, {0}}, {BP_OP_COPY, BP_FLOAT32, BP_INT32, {0}}}, {2, 1}};
    const Run run = run_fused(p, prog);
    CHECK(run.status == BP_ERR_UNSUPPORTED);
    CHECK(run.message.find("float64") != std::string::npos);
    for (const Bytes &out : run.outputs) CHECK(out == Bytes(out.size(), 0xA5));
  }
  const PluginHandle p = open_plugin("");
  const auto refused = [&](Program prog, bp_status status, const std::string &words) {
    INFO(prog.name);
    const Run run = run_fused(p, prog);
    CHECK(run.status == status);
    CHECK(run.message.find(words) != std::string::npos);
    for (const Bytes &out : run.outputs) CHECK(out == Bytes(out.size(), 0xA5));
  };
  const Tensor x = random_tensor(BP_FLOAT32, dense(Shape{8}), rng);
  refused({"operand not yet computed", {8}, {x}, {{BP_OP_NEG, BP_FLOAT32, BP_FLOAT32, {1}}}, {1}},
          BP_ERR_INVALID_ARGUMENT, "fused instruction 0");
  refused({"a reduction", {8}, {x}, {{BP_OP_SUM, BP_FLOAT32, BP_FLOAT32, {0}}}, {1}}, BP_ERR_INVALID_ARGUMENT,
          "not an elementwise operator");
  refused({"operand of the wrong dtype", {8}, {x}, {{BP_OP_NEG, BP_INT32, BP_INT32, {0}}}, {1}}, BP_ERR_DTYPE,
          "fused instruction 0");
  {
    Buffers b(p);
    const bp_fused_instr neg = abi_instr(Instr{BP_OP_NEG, BP_FLOAT32, BP_FLOAT32, {0}});
    const bp_plugin_tensor in = b.view(x), out = b.view(sentinel_output(BP_FLOAT32, dense(Shape{8})));
    const int32_t value = 1;
    bp_fused_program program{};
    program.struct_size = sizeof program;
    program.n_inputs = 1;
    program.n_instrs = 1;
    program.n_outputs = 1;
    program.inputs = &in;
    program.instrs = &neg;
    program.outputs = &out;
    program.output_values = &value;
    check_error(p.api(), p.api().execute_fused(7, &program), BP_ERR_UNKNOWN_DEVICE);
    program.struct_size = 8;
    check_error(p.api(), p.api().execute_fused(0, &program), BP_ERR_INVALID_ARGUMENT, {"struct_size"});
    CHECK(p.download<uint8_t>(out.buffer, 32) == Bytes(32, 0xA5));
  }
}
