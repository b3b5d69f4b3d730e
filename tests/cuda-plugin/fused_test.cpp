// execute_fused of the CUDA plugin. Without a GPU: the kernel source of
// programs of every family, dtype, scalar side and layout compiles with
// NVRTC for sm_90 (what an H100 gets), and the entry refuses an unknown
// device. With a GPU: every program's outputs are bit for bit those of
// running its instructions one by one through execute; a program run again
// with other scalars or shapes compiles nothing; bad programs are refused
// with nothing written.
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <regex>

#include "cuda_test.hpp"
#include "fused_args.hpp"
#include "fused_disk_cache.hpp"
#include "fused_nvrtc.hpp"
#include "fused_source.hpp"
#include "scratch_dir.hpp"

using namespace cuda_test;

namespace {

// ---- programs, independent of where their tensors live ------------------------

struct Instr {
  bp_op op;
  bp_dtype dtype, out_dtype;
  int32_t scalar_mode;
  std::vector<int32_t> args;
  double scalar;
};

struct Program {
  std::string name;
  std::vector<bp_dtype> inputs;
  std::vector<Instr> instrs;
  std::vector<int32_t> outputs;  // value numbers

  bp_dtype value_dtype(int32_t v) const {
    const int32_t n = static_cast<int32_t>(inputs.size());
    return v < n ? inputs[static_cast<size_t>(v)] : instrs[static_cast<size_t>(v - n)].out_dtype;
  }
  // Appends an instruction; returns its value number.
  int32_t add(bp_op op, bp_dtype dtype, std::vector<int32_t> args, int32_t mode = BP_SCALAR_NONE,
              double scalar = 0) {
    const bp_dtype out = op == BP_OP_COPY ? dtype : out_dtype(op, dtype);
    instrs.push_back({op, dtype, out, mode, std::move(args), scalar});
    return static_cast<int32_t>(inputs.size() + instrs.size()) - 1;
  }
  int32_t convert(bp_dtype from, bp_dtype to, int32_t arg) {
    instrs.push_back({BP_OP_COPY, from, to, BP_SCALAR_NONE, {arg}, 0});
    return static_cast<int32_t>(inputs.size() + instrs.size()) - 1;
  }
};

// A scalar the core could pass for `dtype` (integral for integer dtypes).
double scalar_for(bp_dtype dtype, int salt) {
  if (dtype == BP_BOOL) return salt % 2;
  if (is_float(dtype)) return 0.75 + salt;
  return 2 + salt;
}

// Programs of at most BP_FUSED_MAX_OUTPUTS outputs, one per instruction,
// each instruction reading the inputs directly: `name` and the next chunk.
void add_chunked(std::vector<Program> &out, const std::string &name, const std::vector<bp_dtype> &inputs,
                 const std::vector<Instr> &instrs) {
  for (size_t first = 0; first < instrs.size(); first += BP_FUSED_MAX_OUTPUTS) {
    Program p{name + " #" + std::to_string(first / BP_FUSED_MAX_OUTPUTS), inputs, {}, {}};
    for (size_t k = first; k < instrs.size() && k < first + BP_FUSED_MAX_OUTPUTS; ++k) {
      p.instrs.push_back(instrs[k]);
      p.outputs.push_back(static_cast<int32_t>(p.inputs.size() + p.instrs.size()) - 1);
    }
    out.push_back(p);
  }
}

// Every operator of the five families for every dtype it is defined for,
// tensor operands and scalar ones on either side.
std::vector<Program> family_programs() {
  std::vector<Program> programs;
  for (bp_dtype t : kAllTypes) {
    const std::string type = dtype_name(t);
    std::vector<Instr> binary, unary;
    for (int32_t family : {BP_OP_FAMILY_BINARY, BP_OP_FAMILY_COMPARE})
      for (bp_op op : ops_in(family)) {
        if (!defined_for(op, t)) continue;
        const bp_dtype out = out_dtype(op, t);
        binary.push_back({op, t, out, BP_SCALAR_NONE, {0, 1}, 0});
        binary.push_back({op, t, out, BP_SCALAR_RHS, {0}, scalar_for(t, 1)});
        binary.push_back({op, t, out, BP_SCALAR_LHS, {1}, scalar_for(t, 2)});
      }
    binary.push_back({BP_OP_WHERE, t, t, BP_SCALAR_NONE, {2, 0, 1}, 0});
    add_chunked(programs, "binary, compare and where " + type, {t, t, BP_BOOL}, binary);
    for (bp_op op : ops_in(BP_OP_FAMILY_UNARY))
      if (defined_for(op, t)) unary.push_back({op, t, out_dtype(op, t), BP_SCALAR_NONE, {0}, 0});
    for (bp_dtype to : kAllTypes) unary.push_back({BP_OP_COPY, t, to, BP_SCALAR_NONE, {0}, 0});
    add_chunked(programs, "unary and copy " + type, {t}, unary);
  }
  return programs;
}

// Chains through registers of several dtypes, several outputs, an output
// that is an input, and instructions no output needs.
std::vector<Program> composite_programs() {
  std::vector<Program> programs;
  {
    Program p{"mixed chain", {BP_FLOAT32, BP_FLOAT32, BP_INT64, BP_BOOL}, {}, {}};
    const int32_t t = p.add(BP_OP_MUL, BP_FLOAT32, {0, 1});
    const int32_t u = p.add(BP_OP_ADD, BP_FLOAT32, {t}, BP_SCALAR_RHS, 0.5);
    const int32_t m = p.add(BP_OP_GT, BP_FLOAT32, {u, 1});
    const int32_t w = p.add(BP_OP_WHERE, BP_FLOAT32, {m, u, 0});
    const int32_t q = p.convert(BP_FLOAT32, BP_INT64, w);
    const int32_t r = p.add(BP_OP_ADD, BP_INT64, {q, 2});
    const int32_t z = p.convert(BP_INT64, BP_FLOAT64, r);
    const int32_t s = p.add(BP_OP_SIGMOID, BP_FLOAT64, {z});
    p.add(BP_OP_EXP, BP_FLOAT32, {0});  // dead
    const int32_t b = p.add(BP_OP_BITWISE_XOR, BP_BOOL, {m, 3});
    const int32_t d = p.add(BP_OP_SUB, BP_FLOAT64, {s}, BP_SCALAR_LHS, 1.0);
    p.outputs = {w, r, m, s, b, d, 0};
    programs.push_back(p);
  }
  {
    Program p{"integer chain", {BP_INT32, BP_INT32}, {}, {}};
    const int32_t a = p.add(BP_OP_FLOOR_DIVIDE, BP_INT32, {0, 1});
    const int32_t b = p.add(BP_OP_REMAINDER, BP_INT32, {a}, BP_SCALAR_RHS, 7);
    const int32_t c = p.add(BP_OP_POW, BP_INT32, {b}, BP_SCALAR_LHS, 3);
    const int32_t d = p.add(BP_OP_BITWISE_NOT, BP_INT32, {c});
    const int32_t e = p.add(BP_OP_MAXIMUM, BP_INT32, {d, 0});
    const int32_t f = p.convert(BP_INT32, BP_BOOL, e);
    const int32_t g = p.convert(BP_BOOL, BP_FLOAT32, f);
    p.outputs = {e, g};
    programs.push_back(p);
  }
  {
    // The 8- and 16-bit dtypes, held widened in registers: every result
    // must be narrowed (rounded or wrapped) before the next instruction
    // reads it, as execute would have stored it.
    Program p{"narrow chain", {BP_FLOAT16, BP_BFLOAT16, BP_INT8, BP_UINT8}, {}, {}};
    const int32_t h = p.add(BP_OP_ADD, BP_FLOAT16, {0}, BP_SCALAR_RHS, 0.1);
    const int32_t m = p.add(BP_OP_MUL, BP_FLOAT16, {h, h});
    const int32_t b = p.convert(BP_FLOAT16, BP_BFLOAT16, m);
    const int32_t c = p.add(BP_OP_SUB, BP_BFLOAT16, {b, 1});
    const int32_t g = p.add(BP_OP_GT, BP_BFLOAT16, {c, 1});
    const int32_t w = p.add(BP_OP_WHERE, BP_BFLOAT16, {g, c, 1});
    const int32_t i = p.add(BP_OP_MUL, BP_INT8, {2, 2});
    const int32_t j = p.add(BP_OP_ADD, BP_INT8, {i}, BP_SCALAR_LHS, 100);
    const int32_t u = p.convert(BP_INT8, BP_UINT8, j);
    const int32_t v = p.add(BP_OP_FLOOR_DIVIDE, BP_UINT8, {u, 3});
    const int32_t f = p.convert(BP_UINT8, BP_FLOAT16, v);
    const int32_t z = p.convert(BP_FLOAT16, BP_INT16, f);
    p.outputs = {w, v, z, m, g};
    programs.push_back(p);
  }
  {
    Program p{"every input strided", {BP_FLOAT64, BP_FLOAT64, BP_FLOAT64, BP_FLOAT64}, {}, {}};
    const int32_t a = p.add(BP_OP_ADD, BP_FLOAT64, {0, 1});
    const int32_t b = p.add(BP_OP_MUL, BP_FLOAT64, {2, 3});
    const int32_t c = p.add(BP_OP_DIV, BP_FLOAT64, {a, b});
    const int32_t d = p.add(BP_OP_REMAINDER, BP_FLOAT64, {c}, BP_SCALAR_RHS, 0.75);
    p.outputs = {d, c};
    programs.push_back(p);
  }
  {
    // The longest and widest program the core passes.
    Program p{"limits", {}, {}, {}};
    for (int i = 0; i < BP_FUSED_MAX_INPUTS; ++i) p.inputs.push_back(i % 2 ? BP_FLOAT32 : BP_INT32);
    // Inputs alternate int32 (even) and float32 (odd): two chains, each
    // reading every input of its dtype in turn.
    int32_t f = 1, n = 0;
    for (int k = 0; static_cast<int>(p.instrs.size()) < BP_FUSED_MAX_INSTRS; ++k) {
      const int32_t odd = (2 * k + 3) % BP_FUSED_MAX_INPUTS;
      if (k % 2) f = p.add(BP_OP_ADD, BP_FLOAT32, {f, odd});
      else n = p.add(BP_OP_SUB, BP_INT32, {n, odd - 1});
    }
    for (int j = 0; j < BP_FUSED_MAX_OUTPUTS; ++j) p.outputs.push_back(j % 2 ? f : n);
    programs.push_back(p);
  }
  return programs;
}

// ---- tensors for a program --------------------------------------------------

// The inputs' layouts for one shape: input i takes input_layouts()[i +
// rotation], so programs see dense, transposed, spaced and broadcast inputs
// side by side.
std::vector<Layout> layouts_for(const Program &p, const Shape &shape, size_t rotation) {
  const std::vector<Layout> all = input_layouts(shape);
  std::vector<Layout> out;
  for (size_t i = 0; i < p.inputs.size(); ++i) out.push_back(all[(i + rotation) % all.size()]);
  return out;
}

// A bp_fused_program over given views; the arrays live as long as the call.
class Call {
 public:
  Call(const Program &p, std::vector<bp_plugin_tensor> inputs, std::vector<bp_plugin_tensor> outputs)
      : inputs_(std::move(inputs)), outputs_(std::move(outputs)), values_(p.outputs) {
    for (const Instr &in : p.instrs)
      instrs_.push_back(fused_instr(in.op, in.dtype, in.out_dtype, in.args, in.scalar_mode, in.scalar));
    program_ = fused_program(inputs_, instrs_, outputs_, values_);
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;

  bp_fused_program &program() { return program_; }
  bp_fused_instr &instr(size_t k) { return instrs_[k]; }
  bp_plugin_tensor &output(size_t j) { return outputs_[j]; }

 private:
  std::vector<bp_plugin_tensor> inputs_, outputs_;
  std::vector<bp_fused_instr> instrs_;
  std::vector<int32_t> values_;
  bp_fused_program program_;
};

// ---- without a GPU: sources compile with NVRTC ------------------------------

// XDG_CACHE_HOME pointed at a new empty directory for the test's lifetime
// (ctest runs every test case in a process of its own), removed after.
class CacheHome {
 public:
  CacheHome() {
    const char *old = std::getenv("XDG_CACHE_HOME");
    had_old_ = old != nullptr;
    if (old) old_ = old;
    setenv("XDG_CACHE_HOME", dir_.path().c_str(), 1);
  }
  ~CacheHome() {
    if (had_old_) setenv("XDG_CACHE_HOME", old_.c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
  }
  CacheHome(const CacheHome &) = delete;
  CacheHome &operator=(const CacheHome &) = delete;
  const std::string &path() const { return dir_.path(); }

 private:
  const ScratchDir dir_{"bp-cuda-fused"};
  std::string old_;
  bool had_old_ = false;
};

std::vector<std::filesystem::path> files_in(const std::string &dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ignored;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ignored)) files.push_back(entry.path());
  return files;
}

// Views of `layout` in distinct made-up buffers: the generator reads shapes,
// strides and dtypes only.
bp_plugin_tensor fake_view(bp_dtype dtype, const Layout &layout, uintptr_t id) {
  return plugin_view(reinterpret_cast<bp_buffer>(id * 4096), dtype, layout);
}

// The program's source for `shape` compiles for sm_90.
void check_compiles(const Program &p, const Shape &shape, size_t rotation) {
  const std::vector<Layout> layouts = layouts_for(p, shape, rotation);
  std::vector<bp_plugin_tensor> inputs, outputs;
  uintptr_t id = 1;
  for (size_t i = 0; i < p.inputs.size(); ++i) inputs.push_back(fake_view(p.inputs[i], layouts[i], id++));
  for (int32_t v : p.outputs) outputs.push_back(fake_view(p.value_dtype(v), dense(shape), id++));
  Call call(p, inputs, outputs);
  const bp_cuda::FusedLayout layout = bp_cuda::plan_fused_layout(call.program());
  const std::string source = bp_cuda::fused_source(call.program(), layout);
  const bp_cuda::FusedCompilation c = bp_cuda::compile_fused_source(source, "sm_90");
  INFO(p.name << ", shape " << shape_text(shape) << ", " << layout.n_strided << " strided inputs\n"
              << c.error << "\n" << c.log << "\n--- source ---\n" << source);
  REQUIRE(c.ok);
  CHECK(c.image.cubin);
  CHECK(!c.image.code.empty());
}

}  // namespace

TEST_CASE("cuda fused: every family and dtype compiles with NVRTC for sm_90", "[cuda][fused][nvrtc]") {
  for (const Program &p : family_programs()) check_compiles(p, {7, 5}, 1);
}

TEST_CASE("cuda fused: chains, several outputs, strided and broadcast inputs compile with NVRTC",
          "[cuda][fused][nvrtc]") {
  for (const Program &p : composite_programs()) {
    check_compiles(p, {3, 4, 5}, 0);
    check_compiles(p, {2, 1, 3, 1, 2, 3, 1, 2}, 2);
  }
}

TEST_CASE("cuda fused: float arithmetic compiles without fused multiply-adds", "[cuda][fused][nvrtc]") {
  for (bp_dtype t : kFloatTypes) {
    Program p{"a * b + c", {t, t, t}, {}, {}};
    const int32_t product = p.add(BP_OP_MUL, t, {0, 1});
    const int32_t sum = p.add(BP_OP_ADD, t, {product, 2});
    p.outputs = {sum, p.add(BP_OP_SUB, t, {sum}, BP_SCALAR_LHS, 1.0)};
    const Shape shape = {5};
    Call call(p, {fake_view(t, dense(shape), 1), fake_view(t, dense(shape), 2), fake_view(t, dense(shape), 3)},
              {fake_view(t, dense(shape), 4), fake_view(t, dense(shape), 5)});
    const std::string source = bp_cuda::fused_source(call.program(), bp_cuda::plan_fused_layout(call.program()));
    const bp_cuda::FusedCompilation c = bp_cuda::compile_fused_source(source, "compute_90");
    INFO(c.error << "\n" << c.log);
    REQUIRE(c.ok);
    CHECK_FALSE(c.image.cubin);
    const std::string ptx(c.image.code.begin(), c.image.code.end());
    INFO(ptx);
    // float16 and bfloat16 compute in float32.
    CHECK(ptx.find(t == BP_FLOAT64 ? "mul.rn.f64" : "mul.rn.f32") != std::string::npos);
    CHECK(ptx.find("fma") == std::string::npos);
  }
}

TEST_CASE("cuda fused: compiled kernels are kept on disk, and only an intact entry of the same identity is used",
          "[cuda][fused][nvrtc]") {
  const CacheHome home;
  const std::string dir = bp_cuda::fused_cache_dir();
  CHECK(dir == home.path() + "/backplane/cuda");
  Program p{"disk", {BP_FLOAT32}, {}, {}};
  p.outputs = {p.add(BP_OP_TANH, BP_FLOAT32, {0})};
  Call call(p, {fake_view(BP_FLOAT32, dense({9}), 1)}, {fake_view(BP_FLOAT32, dense({9}), 2)});
  const std::string source = bp_cuda::fused_source(call.program(), bp_cuda::plan_fused_layout(call.program()));
  const bp_cuda::FusedImage image = bp_cuda::compile_fused(source, "sm_90", "cuda:test");
  const std::string identity = bp_cuda::fused_identity(source, "sm_90");
  CHECK(identity.find(source) != std::string::npos);
  CHECK(identity.find("--fmad=false") != std::string::npos);
  bp_cuda::FusedImage loaded;
  CHECK_FALSE(bp_cuda::load_fused_image(dir, identity, loaded));

  bp_cuda::store_fused_image(dir, identity, image);
  REQUIRE(files_in(dir).size() == 1);  // no temporary file left behind
  REQUIRE(bp_cuda::load_fused_image(dir, identity, loaded));
  CHECK(loaded.code == image.code);
  CHECK(loaded.cubin);
  CHECK(loaded.target == "sm_90");
  CHECK_FALSE(bp_cuda::load_fused_image(dir, bp_cuda::fused_identity(source, "sm_89"), loaded));
  CHECK_FALSE(bp_cuda::load_fused_image(dir, bp_cuda::fused_identity(source + " ", "sm_90"), loaded));

  // Another identity's entry under this one's name (a hash collision) and a
  // cut-off entry are misses.
  const std::filesystem::path entry = files_in(dir)[0];
  const std::string other = bp_cuda::fused_identity(source + "// other\n", "sm_90");
  bp_cuda::store_fused_image(dir, other, image);
  for (const auto &f : files_in(dir))
    if (f != entry) std::filesystem::rename(f, entry);
  CHECK_FALSE(bp_cuda::load_fused_image(dir, identity, loaded));
  bp_cuda::store_fused_image(dir, identity, image);
  std::filesystem::resize_file(entry, std::filesystem::file_size(entry) - 1);
  CHECK_FALSE(bp_cuda::load_fused_image(dir, identity, loaded));

  // A directory that cannot be made: nothing stored, nothing thrown.
  bp_cuda::store_fused_image("/proc/no/such/dir", identity, image);
  CHECK_FALSE(bp_cuda::load_fused_image("/proc/no/such/dir", identity, loaded));
}

TEST_CASE("cuda fused: the launch arguments match the compiled kernel's parameters", "[cuda][fused][nvrtc]") {
  Program p{"arguments", {BP_FLOAT32, BP_INT64, BP_BOOL}, {}, {}};
  const int32_t f = p.add(BP_OP_ADD, BP_FLOAT32, {0}, BP_SCALAR_RHS, 1e40);
  const int32_t d = p.add(BP_OP_MUL, BP_FLOAT64, {p.convert(BP_FLOAT32, BP_FLOAT64, f)}, BP_SCALAR_LHS, 0.1);
  const int32_t i = p.add(BP_OP_SUB, BP_INT32, {p.convert(BP_INT64, BP_INT32, 1)}, BP_SCALAR_RHS, 1e20);
  const int32_t l = p.add(BP_OP_MAXIMUM, BP_INT64, {1}, BP_SCALAR_LHS, -3);
  const int32_t b = p.add(BP_OP_EQ, BP_BOOL, {2}, BP_SCALAR_RHS, 1);
  p.outputs = {d, i, l, b};
  const Shape shape = {6, 4};
  Call call(p,
            {fake_view(BP_FLOAT32, dense(shape), 1), fake_view(BP_INT64, transposed(shape), 2),
             fake_view(BP_BOOL, broadcast(shape, {true, false}), 3)},
            {fake_view(BP_FLOAT64, dense(shape), 4), fake_view(BP_INT32, dense(shape), 5),
             fake_view(BP_INT64, dense(shape), 6), fake_view(BP_BOOL, dense(shape), 7)});
  const bp_cuda::FusedLayout layout = bp_cuda::plan_fused_layout(call.program());
  const std::string source = bp_cuda::fused_source(call.program(), layout);
  const bp_cuda::FusedCompilation c = bp_cuda::compile_fused_source(source, "compute_90");
  INFO(c.error << "\n" << c.log << "\n" << source);
  REQUIRE(c.ok);
  std::vector<void *> addresses;
  for (uintptr_t a = 1; a <= 7; ++a) addresses.push_back(reinterpret_cast<void *>(a * 256));
  bp_cuda::FusedArgs args(call.program(), layout, addresses);

  // The PTX declares every parameter with its size: .param .u64 bp_fused_param_1, ...
  const std::string ptx(c.image.code.begin(), c.image.code.end());
  INFO(ptx.substr(0, 2000));
  const std::regex param(R"(\.param\s+(?:\.align\s+\d+\s+)?\.[a-z](\d+)\s+bp_fused_param_(\d+)(?:\[(\d+)\])?)");
  std::vector<size_t> declared;
  for (std::sregex_iterator m(ptx.begin(), ptx.end(), param), end; m != end; ++m) {
    REQUIRE(std::stoul((*m)[2]) == declared.size());
    declared.push_back(std::stoul((*m)[1]) / 8 * ((*m)[3].matched ? std::stoul((*m)[3]) : 1));
  }
  CHECK(declared == args.sizes());
  REQUIRE(args.sizes().size() == 1 + 3 + 4 + 5);

  const auto word = [&](size_t k) { return static_cast<const int64_t *>(args.value(0))[k]; };
  CHECK(word(0) == 24);  // numel
  CHECK(*static_cast<void *const *>(args.value(2)) == addresses[1]);
  CHECK(*static_cast<void *const *>(args.value(7)) == addresses[6]);
  // Scalars converted as execute converts attrs.scalar: rounded, saturated.
  CHECK(*static_cast<const float *>(args.value(8)) == std::numeric_limits<float>::infinity());
  CHECK(*static_cast<const double *>(args.value(9)) == 0.1);
  CHECK(*static_cast<const int32_t *>(args.value(10)) == std::numeric_limits<int32_t>::max());
  CHECK(*static_cast<const int64_t *>(args.value(11)) == -3);
  CHECK(*static_cast<const uint8_t *>(args.value(12)) == 1);
}

TEST_CASE("cuda fused: NVRTC targets the device's architecture, else PTX below it, and a refused source is declined",
          "[cuda][fused][nvrtc]") {
  CHECK(bp_cuda::fused_target(9, 0) == "sm_90");
  CHECK(bp_cuda::fused_target(99, 9).rfind("compute_", 0) == 0);
  CHECK(bp_cuda::fused_target(1, 0).empty());
  bool thrown = false;
  try {
    bp_cuda::compile_fused("this is not CUDA C++", "sm_90", "cuda:7");
  } catch (const bp_plugin::Error &e) {
    thrown = true;
    const std::string message = e.what();
    INFO(message);
    CHECK(e.status() == BP_ERR_UNSUPPORTED);
    for (const char *word : {"cuda:7", "nvrtcCompileProgram", "sm_90", "error"})
      CHECK(message.find(word) != std::string::npos);
  }
  CHECK(thrown);
}

TEST_CASE("cuda fused: the layout merges axes and reads dense inputs at the element index", "[cuda][fused]") {
  const Shape shape = {4, 5, 6};
  Program p{"layout", {BP_FLOAT32, BP_FLOAT32, BP_FLOAT32}, {}, {}};
  p.outputs = {p.add(BP_OP_WHERE, BP_FLOAT32, {0, 1, 2})};
  p.inputs[0] = BP_BOOL;
  // Dense, broadcast along the last axis, transposed.
  Call call(p,
            {fake_view(BP_BOOL, dense(shape), 1), fake_view(BP_FLOAT32, broadcast(shape, {false, false, true}), 2),
             fake_view(BP_FLOAT32, transposed(shape), 3)},
            {fake_view(BP_FLOAT32, dense(shape), 4)});
  const bp_cuda::FusedLayout layout = bp_cuda::plan_fused_layout(call.program());
  CHECK(layout.numel == 120);
  CHECK(layout.n_strided == 2);
  CHECK(layout.strided_slot[0] == -1);
  CHECK(layout.rank == 3);
  // Two broadcast-along-the-last-axis inputs and a dense one: the first two
  // axes merge.
  Call merged(p,
              {fake_view(BP_BOOL, dense(shape), 1), fake_view(BP_FLOAT32, broadcast(shape, {false, false, true}), 2),
               fake_view(BP_FLOAT32, broadcast(shape, {false, false, true}), 3)},
              {fake_view(BP_FLOAT32, dense(shape), 4)});
  const bp_cuda::FusedLayout two = bp_cuda::plan_fused_layout(merged.program());
  CHECK(two.rank == 2);
  CHECK(two.shape[0] == 20);
  CHECK(two.shape[1] == 6);
  CHECK(two.strides[0][0] == 1);
  CHECK(two.strides[0][1] == 0);
}

TEST_CASE("cuda fused: the entry refuses a device that does not exist", "[cuda][fused]") {
  PluginHandle plugin(kPlugin);
  const bp_plugin_api &api = plugin.api();
  REQUIRE(api.struct_size >= BP_PLUGIN_API_SIZE_1_3);
  REQUIRE(api.execute_fused != nullptr);
  Program p{"one", {BP_FLOAT32}, {}, {}};
  p.outputs = {p.add(BP_OP_NEG, BP_FLOAT32, {0})};
  Call call(p, {fake_view(BP_FLOAT32, dense({3}), 1)}, {fake_view(BP_FLOAT32, dense({3}), 2)});
  const int32_t missing = plugin.device_count() + 3;
  check_error(api, api.execute_fused(missing, &call.program()), BP_ERR_UNKNOWN_DEVICE,
              {"execute_fused", std::to_string(missing)});
}

namespace {

// ---- with a GPU: fused against op by op --------------------------------------

// A tensor's elements in C order, as bytes.
Bytes element_bytes(Buffers &b, const bp_plugin_tensor &t) {
  Bytes out;
  const auto append = [&](const auto &values) {
    const size_t size = sizeof(values[0]);
    out.resize(values.size() * size);
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  };
  switch (dtype_size(t.dtype)) {
    case 1: append(b.values<uint8_t>(t)); break;
    case 4: append(b.values<uint32_t>(t)); break;
    default: append(b.values<uint64_t>(t)); break;
  }
  return out;
}

uint64_t compiled_count(const PluginHandle &plugin) {
  bp_property props[64];
  int32_t n = 0;
  plugin.check(plugin.api().device_properties(0, props, 64, &n), "device_properties");
  for (int32_t i = 0; i < n; ++i)
    if (std::string(props[i].key) == "fused_kernels_compiled") return std::stoull(props[i].value);
  FAIL("no fused_kernels_compiled property");
  return 0;
}

// A dense output one element into a buffer of sentinel bytes, so writes
// outside it show.
Layout output_layout(const Shape &shape) { return strided(shape, c_strides(shape), 1); }

// Runs `p` fused and op by op on the same inputs; every output must be bit
// for bit the op-by-op value, and nothing outside the outputs written.
void check_program(Session &s, const Program &p, const Shape &shape, size_t rotation, std::mt19937_64 &rng) {
  const std::vector<Layout> layouts = layouts_for(p, shape, rotation);
  std::vector<bp_plugin_tensor> inputs, outputs;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    inputs.push_back(s.view(random_tensor(p.inputs[i], layouts[i], rng, Values::general)));
  std::vector<Tensor> sentinels;
  for (int32_t v : p.outputs) {
    sentinels.push_back(sentinel_output(p.value_dtype(v), output_layout(shape)));
    outputs.push_back(s.view(sentinels.back()));
  }
  Call call(p, inputs, outputs);
  const bp_status status = s.api().execute_fused(0, &call.program());
  INFO(p.name << ", shape " << shape_text(shape) << ", rotation " << rotation << ": "
              << (status == BP_OK ? "" : s.error()));
  REQUIRE(status == BP_OK);

  std::vector<bp_plugin_tensor> values = inputs;
  for (const Instr &in : p.instrs) {
    std::vector<bp_plugin_tensor> operands;
    for (int32_t a : in.args) operands.push_back(values[static_cast<size_t>(a)]);
    values.push_back(s.empty(in.out_dtype, shape));
    s.exec(in.op, operands, values.back(), attrs_with(in.scalar, 0, 0, in.scalar_mode));
  }
  for (size_t j = 0; j < p.outputs.size(); ++j) {
    INFO("output " << j << " (value " << p.outputs[j] << ", " << dtype_name(outputs[j].dtype) << ")");
    const bp_plugin_tensor &expected = values[static_cast<size_t>(p.outputs[j])];
    check_buffers(outputs[j].dtype, element_bytes(s, outputs[j]), element_bytes(s, expected), kExact, "fused");
    const Bytes whole = s.plugin().download<uint8_t>(outputs[j].buffer, sentinels[j].bytes.size());
    const size_t size = static_cast<size_t>(dtype_size(outputs[j].dtype));
    const size_t end = size * static_cast<size_t>(1 + numel(shape));
    CHECK(std::all_of(whole.begin(), whole.begin() + size, [](uint8_t x) { return x == 0xA5; }));
    CHECK(std::all_of(whole.begin() + end, whole.end(), [](uint8_t x) { return x == 0xA5; }));
  }
}

}  // namespace

TEST_CASE("cuda fused: every family and dtype is bit for bit execute's, op by op", "[cuda][fused]") {
  const CacheHome home;  // kernels compiled here stay out of the user's cache
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  std::mt19937_64 rng(31);
  const std::vector<Program> programs = family_programs();
  for (size_t i = 0; i < programs.size(); ++i) {
    check_program(s, programs[i], {7, 5}, i, rng);
    check_program(s, programs[i], {300, 257}, i + 1, rng);
  }
}

TEST_CASE("cuda fused: chains, several outputs, every layout and rank, empty shapes", "[cuda][fused]") {
  const CacheHome home;  // kernels compiled here stay out of the user's cache
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  std::mt19937_64 rng(32);
  for (const Program &p : composite_programs())
    for (const Shape &shape : elementwise_shapes(true))
      for (size_t rotation = 0; rotation < 6; ++rotation) check_program(s, p, shape, rotation, rng);
}

TEST_CASE("cuda fused: an output that is the very view of an input is read before it is written", "[cuda][fused]") {
  const CacheHome home;  // kernels compiled here stay out of the user's cache
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const std::vector<double> x = {-2, -0.5, 0, 0.25, 3, 7};
  Program p{"in place", {BP_FLOAT64, BP_FLOAT64}, {}, {}};
  const int32_t a = p.add(BP_OP_MUL, BP_FLOAT64, {0, 1});
  p.outputs = {p.add(BP_OP_SUB, BP_FLOAT64, {a}, BP_SCALAR_LHS, 1.0)};
  const bp_plugin_tensor data = s.tensor<double>({6}, x);
  const bp_plugin_tensor other = s.tensor<double>({6}, {1, 2, 3, 4, 5, 6});
  Call call(p, {data, other}, {data});
  REQUIRE(s.api().execute_fused(0, &call.program()) == BP_OK);
  std::vector<double> expected;
  for (size_t i = 0; i < x.size(); ++i) expected.push_back(1.0 - x[i] * static_cast<double>(i + 1));
  check_values(s.values<double>(data), expected);
}

TEST_CASE("cuda fused: a program run again with other scalars and shapes compiles nothing", "[cuda][fused]") {
  const CacheHome home;  // an empty disk cache, not the user's: the first run compiles
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  std::mt19937_64 rng(33);
  // Not among the other tests' programs, so its first run compiles.
  Program p{"cache", {BP_FLOAT64, BP_INT64}, {}, {}};
  const int32_t a = p.add(BP_OP_MUL, BP_FLOAT64, {0}, BP_SCALAR_RHS, 2.0);
  const int32_t b = p.add(BP_OP_SUB, BP_FLOAT64, {a}, BP_SCALAR_LHS, 3.0);
  const int32_t c = p.add(BP_OP_ADD, BP_INT64, {1}, BP_SCALAR_RHS, 5.0);
  p.outputs = {b, c};
  const uint64_t before = compiled_count(s.plugin());
  check_program(s, p, {7, 5}, 0, rng);
  CHECK(compiled_count(s.plugin()) == before + 1);
  p.instrs[0].scalar = -1.5;
  p.instrs[1].scalar = 0.25;
  p.instrs[2].scalar = -9;
  check_program(s, p, {7, 5}, 0, rng);
  check_program(s, p, {11, 3, 2}, 0, rng);
  CHECK(compiled_count(s.plugin()) == before + 1);
  // A transposed input is another kernel.
  check_program(s, p, {7, 5}, 1, rng);
  CHECK(compiled_count(s.plugin()) == before + 2);
  CHECK(files_in(bp_cuda::fused_cache_dir()).size() == 2);
}

TEST_CASE("cuda fused: malformed and unsupported programs are refused with nothing written", "[cuda][fused]") {
  const CacheHome home;  // kernels compiled here stay out of the user's cache
  Session s(kPlugin);
  if (!has_device(s.plugin())) return;
  const Shape shape = {4, 3};
  const bp_plugin_tensor x = s.tensor<int32_t>(shape, std::vector<int32_t>(12, 7));
  const auto refused = [&](Program p, bp_status expected, const std::vector<std::string> &words,
                           void (*tamper)(Call &) = nullptr) {
    INFO(p.name);
    const Tensor sentinel = sentinel_output(p.value_dtype(p.outputs[0]), output_layout(shape));
    const bp_plugin_tensor out = s.view(sentinel);
    Call call(p, {x}, {out});
    if (tamper) tamper(call);
    check_error(s, s.api().execute_fused(0, &call.program()), expected, words);
    s.plugin().check(s.api().synchronize(0), "synchronize");
    CHECK(s.plugin().download<uint8_t>(out.buffer, sentinel.bytes.size()) == sentinel.bytes);
  };
  Program forward{"operand defined later", {BP_INT32}, {}, {}};
  forward.outputs = {forward.add(BP_OP_NEG, BP_INT32, {0})};
  forward.instrs[0].args = {1};
  refused(forward, BP_ERR_INVALID_ARGUMENT, {"fused instruction 0", "neg"});

  Program unknown{"operator outside the vocabulary", {BP_INT32}, {}, {}};
  unknown.outputs = {unknown.add(BP_OP_NEG, BP_INT32, {0})};
  refused(unknown, BP_ERR_UNSUPPORTED, {"fused instruction 0", "9999"}, [](Call &c) { c.instr(0).op = 9999; });

  Program int_div{"integer division", {BP_INT32}, {}, {}};
  int_div.outputs = {int_div.add(BP_OP_NEG, BP_INT32, {0})};
  refused(int_div, BP_ERR_UNSUPPORTED, {"fused instruction 0", "div"}, [](Call &c) {
    c.instr(0).op = BP_OP_DIV;
    c.instr(0).scalar_mode = BP_SCALAR_RHS;
    c.instr(0).scalar = 2;
  });

  Program reduction{"a reduction", {BP_INT32}, {}, {}};
  reduction.outputs = {reduction.add(BP_OP_NEG, BP_INT32, {0})};
  refused(reduction, BP_ERR_INVALID_ARGUMENT, {"fused instruction 0", "not an elementwise"},
          [](Call &c) { c.instr(0).op = BP_OP_SUM; });

  Program wrong_dtype{"output of another dtype", {BP_INT32}, {}, {}};
  wrong_dtype.outputs = {wrong_dtype.add(BP_OP_NEG, BP_INT32, {0})};
  refused(wrong_dtype, BP_ERR_DTYPE, {"output 0"}, [](Call &c) { c.output(0).dtype = BP_FLOAT32; });

  // Input: elements 0..11 of a buffer; output: elements 1..12 of the same one.
  Program overlap{"output overlapping an input", {BP_INT32}, {}, {}};
  overlap.outputs = {overlap.add(BP_OP_NEG, BP_INT32, {0})};
  const std::vector<int32_t> storage(13, 7);
  const bp_plugin_tensor in = s.view<int32_t>(storage, shape, c_strides(shape));
  bp_plugin_tensor out = in;
  out.offset = sizeof(int32_t);
  Call call(overlap, {in}, {out});
  check_error(s, s.api().execute_fused(0, &call.program()), BP_ERR_INVALID_ARGUMENT, {"output 0 overlaps input 0"});
  s.plugin().check(s.api().synchronize(0), "synchronize");
  CHECK(s.contents<int32_t>(in.buffer, 13) == storage);
}
