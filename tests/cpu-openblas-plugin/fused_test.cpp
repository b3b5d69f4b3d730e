// execute_fused of cpu-openblas: every output of a program must hold, bit
// for bit, what running its instructions one by one through the same
// plugin's execute() into temporaries leaves there. Programs of every
// operator and dtype, scalar operands on either side, contiguous, strided
// and broadcast inputs, rank 0, empty shapes, sizes that are no multiple of
// a tile and large enough for several threads, long random programs with
// many values alive at once, several outputs, outputs taking an input
// unchanged, in place; chains of two instructions the plugin runs as one
// loop; and the refusals, which write nothing.
#include <algorithm>
#include <functional>

#include "cpu_vs_reference.hpp"

using namespace cpu_test;

namespace {

// Sentinel bytes after every output view: a write past it shows.
constexpr size_t kTail = 64;

struct Program {
  std::vector<bp_plugin_tensor> inputs;
  std::vector<bp_fused_instr> instrs;
  std::vector<int32_t> output_values;

  bp_dtype dtype_of_value(int32_t v) const {
    const int32_t n = static_cast<int32_t>(inputs.size());
    return static_cast<bp_dtype>(v < n ? inputs[static_cast<size_t>(v)].dtype
                                       : instrs[static_cast<size_t>(v - n)].out_dtype);
  }
};

bp_fused_program abi_program(const Program &p, const std::vector<bp_plugin_tensor> &outputs) {
  return fused_program(p.inputs, p.instrs, outputs, p.output_values);
}

// A view's elements in C order, as their bytes.
Bytes elements(Buffers &s, const bp_plugin_tensor &t) {
  Bytes out;
  const auto append = [&](auto values) {
    const size_t bytes = values.size() * sizeof(values[0]);
    out.resize(bytes);
    if (bytes) std::memcpy(out.data(), values.data(), bytes);
  };
  switch (dtype_size(t.dtype)) {
    case 1: append(s.values<uint8_t>(t)); break;
    case 2: append(s.values<uint16_t>(t)); break;
    case 4: append(s.values<uint32_t>(t)); break;
    default: append(s.values<uint64_t>(t)); break;
  }
  return out;
}

// The program run one instruction at a time with execute(), each into a
// dense temporary: the expected contents of every output.
std::vector<Bytes> op_by_op(Buffers &s, const Program &p, const Shape &shape) {
  std::vector<bp_plugin_tensor> values = p.inputs;
  for (const bp_fused_instr &in : p.instrs) {
    const bp_plugin_tensor out = s.empty(static_cast<bp_dtype>(in.out_dtype), shape);
    std::vector<bp_plugin_tensor> args;
    for (int32_t a : in.args)
      if (a >= 0) args.push_back(values[static_cast<size_t>(a)]);
    s.exec(in.op, args, out, attrs_with(in.scalar, 0, 0, in.scalar_mode));
    values.push_back(out);
  }
  std::vector<Bytes> expected;
  for (int32_t v : p.output_values) expected.push_back(elements(s, values[static_cast<size_t>(v)]));
  return expected;
}

// A dense output of `shape` whose buffer, kTail bytes longer, starts as 0xA5.
bp_plugin_tensor sentinel_view(Buffers &s, bp_dtype dtype, const Shape &shape) {
  const size_t bytes = static_cast<size_t>(numel(shape) * dtype_size(dtype)) + kTail;
  return plugin_view(s.buffer(Bytes(bytes, 0xA5)), dtype, dense(shape));
}

Bytes whole_buffer(Buffers &s, const bp_plugin_tensor &t) {
  return s.contents<uint8_t>(t.buffer, static_cast<size_t>(t.offset) +
                                           static_cast<size_t>(numel(Shape(t.shape, t.shape + t.rank)) *
                                                               dtype_size(t.dtype)) +
                                           kTail);
}

std::string program_text(const Program &p) {
  std::ostringstream s;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const bp_plugin_tensor &t = p.inputs[i];
    s << "\n  v" << i << " = input " << dtype_name(t.dtype) << " strides "
      << shape_text(Shape(t.strides, t.strides + t.rank));
  }
  for (size_t k = 0; k < p.instrs.size(); ++k) {
    const bp_fused_instr &in = p.instrs[k];
    s << "\n  v" << p.inputs.size() + k << " = " << op_name(in.op) << " " << dtype_name(in.dtype) << "->"
      << dtype_name(in.out_dtype) << " (";
    for (int32_t a : in.args)
      if (a >= 0) s << " v" << a;
    if (in.scalar_mode != BP_SCALAR_NONE) s << (in.scalar_mode == BP_SCALAR_RHS ? " rhs " : " lhs ") << in.scalar;
    s << " )";
  }
  s << "\n  outputs:";
  for (int32_t v : p.output_values) s << " v" << v;
  return s.str();
}

// Two views' elements (`size` bytes each) compared bit for bit; the message
// counts the differences instead of printing whole tensors.
void check_same(const Bytes &got, const Bytes &expected, int64_t size) {
  REQUIRE(got.size() == expected.size());
  const size_t n = static_cast<size_t>(size);
  size_t mismatches = 0, first = 0;
  for (size_t e = 0; e < got.size() / n; ++e)
    if (std::memcmp(got.data() + e * n, expected.data() + e * n, n) != 0 && mismatches++ == 0) first = e;
  INFO(mismatches << " elements differ, the first at " << first);
  CHECK(mismatches == 0);
}

// Runs the program fused into fresh sentinel outputs and checks each output
// against op_by_op, bit for bit, and that nothing past it was written.
void check_fused(Buffers &s, const Program &p, const Shape &shape) {
  INFO("shape " << shape_text(shape) << ", program:" << program_text(p));
  const std::vector<Bytes> expected = op_by_op(s, p, shape);
  std::vector<bp_plugin_tensor> outputs;
  for (int32_t v : p.output_values) outputs.push_back(sentinel_view(s, p.dtype_of_value(v), shape));
  const bp_fused_program prog = abi_program(p, outputs);
  const bp_status status = s.api().execute_fused(0, &prog);
  INFO("execute_fused: " << (status == BP_OK ? "" : s.error()));
  REQUIRE(status == BP_OK);
  for (size_t j = 0; j < outputs.size(); ++j) {
    INFO("output " << j << " (value " << p.output_values[j] << ")");
    check_same(elements(s, outputs[j]), expected[j], dtype_size(outputs[j].dtype));
    const Bytes all = whole_buffer(s, outputs[j]);
    CHECK(std::all_of(all.end() - kTail, all.end(), [](uint8_t b) { return b == 0xA5; }));
  }
}

Values values_for(int32_t op, bool exponent) {
  if (op == BP_OP_POW) return exponent ? Values::exponent : Values::small;
  if (op == BP_OP_LOG || op == BP_OP_SQRT) return Values::positive;
  return Values::general;
}

// Scalars exercising execute's conversion; for float POW the exponents 2
// and 3, which both paths compute by multiplication.
std::vector<double> scalars_for(int32_t op, int32_t dtype) {
  if (is_float(dtype)) return op == BP_OP_POW ? std::vector<double>{2.0, 3.0, -1.5} : std::vector<double>{0.3, -2.0};
  if (dtype == BP_BOOL) return {1.0, 0.0};
  return op == BP_OP_POW ? std::vector<double>{2.0, 3.0, -1.0} : std::vector<double>{3.0, -2.0, 0.0};
}

// Started with a pool of three threads, so large programs run split. Each
// program gets its own Buffers, freed after it.
PluginHandle &plugin() {
  static PluginHandle handle("cpu-openblas", {{"threads", "3"}});
  return handle;
}

// Large enough for several threads, no multiple of any tile.
const Shape kLarge = {123, 1001};

// The shapes of every per-operator program, and the inputs' layouts to use
// on each: every layout on the small shapes, a few on the large one.
std::vector<std::pair<Shape, std::vector<Layout>>> shapes_and_layouts() {
  std::vector<std::pair<Shape, std::vector<Layout>>> out;
  for (const Shape &shape : elementwise_shapes()) out.push_back({shape, input_layouts(shape)});
  std::vector<Layout> large = input_layouts(kLarge);
  out.push_back({kLarge, {large[0], large[1], large[3]}});
  return out;
}

// For a binary or comparison operator on `dtype`: op(a, b), op(a, s),
// op(s, b) for each scalar s, and the first result fed back in, with every
// result an output.
Program binary_program(Buffers &s, int32_t op, bp_dtype dtype, const Layout &la, const Layout &lb,
                       std::mt19937_64 &rng) {
  const bp_dtype out = out_dtype(op, dtype);
  Program p;
  p.inputs = {s.view(random_tensor(dtype, la, rng, values_for(op, false))),
              s.view(random_tensor(dtype, lb, rng, values_for(op, true)))};
  p.instrs.push_back(fused_instr(op, dtype, out, {0, 1}));
  for (double scalar : scalars_for(op, dtype)) {
    p.instrs.push_back(fused_instr(op, dtype, out, {0}, BP_SCALAR_RHS, scalar));
    p.instrs.push_back(fused_instr(op, dtype, out, {1}, BP_SCALAR_LHS, scalar));
  }
  if (out == dtype) p.instrs.push_back(fused_instr(op, dtype, out, {2, 1}));
  for (size_t k = 0; k < p.instrs.size(); ++k) p.output_values.push_back(static_cast<int32_t>(2 + k));
  return p;
}

void check_every_layout(const std::function<Program(Buffers &, const Layout &, const Layout &)> &make) {
  for (const auto &[shape, layouts] : shapes_and_layouts())
    for (size_t i = 0; i < layouts.size(); ++i) {
      INFO("layouts " << layouts[i].name << ", " << layouts[(i + 1) % layouts.size()].name);
      Buffers s(plugin());
      check_fused(s, make(s, layouts[i], layouts[(i + 1) % layouts.size()]), shape);
    }
}

std::vector<bp_op> elementwise_ops() {
  std::vector<bp_op> ops;
  for (int32_t family : {BP_OP_FAMILY_BINARY, BP_OP_FAMILY_COMPARE, BP_OP_FAMILY_WHERE, BP_OP_FAMILY_UNARY,
                         BP_OP_FAMILY_COPY})
    for (bp_op op : ops_in(family)) ops.push_back(op);
  return ops;
}

// A random program over inputs of every dtype: each instruction an
// elementwise operator on a dtype it allows, its operands earlier values of
// that dtype (mostly recent ones, so chains form, sometimes old ones, so
// many values stay alive), scalars on either side, and outputs the last
// value plus a few random ones (inputs among them).
class RandomProgram {
 public:
  explicit RandomProgram(uint64_t seed) : rng_(seed) {}

  Program make(Buffers &s, const Shape &shape, int32_t n_instrs) {
    Program p;
    const std::vector<Layout> layouts = input_layouts(shape);
    for (bp_dtype dtype : kAllTypes) {
      const Layout &layout = layouts[pick(layouts.size())];
      p.inputs.push_back(s.view(random_tensor(dtype, layout, rng_, Values::general)));
    }
    const std::vector<bp_op> ops = elementwise_ops();
    while (static_cast<int32_t>(p.instrs.size()) < n_instrs) {
      const bp_op op = ops[pick(ops.size())];
      const bp_dtype dtype = kAllTypes[pick(kAllTypes.size())];
      if (!defined_for(op, dtype)) continue;
      const int32_t family = bp_vocab_op_family(op);
      const bp_dtype out = op == BP_OP_COPY ? kAllTypes[pick(kAllTypes.size())] : out_dtype(op, dtype);
      const bool binary = family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE;
      const int32_t mode = binary ? static_cast<int32_t>(pick(3)) : BP_SCALAR_NONE;  // NONE, RHS or LHS
      const int arity = family == BP_OP_FAMILY_WHERE ? 3 : binary && mode == BP_SCALAR_NONE ? 2 : 1;
      std::vector<int32_t> args;
      for (int i = 0; i < arity; ++i)
        args.push_back(value_of(p, family == BP_OP_FAMILY_WHERE && i == 0 ? BP_BOOL : dtype));
      const std::vector<double> scalars = scalars_for(op, dtype);
      p.instrs.push_back(fused_instr(op, dtype, out, args, mode, mode ? scalars[pick(scalars.size())] : 0.0));
    }
    const int32_t values = static_cast<int32_t>(p.inputs.size() + p.instrs.size());
    p.output_values.push_back(values - 1);
    for (size_t extra = pick(4); extra > 0; --extra)
      p.output_values.push_back(static_cast<int32_t>(pick(size_t(values))));
    return p;
  }

 private:
  size_t pick(size_t n) { return static_cast<size_t>(rng_() % n); }

  int32_t value_of(const Program &p, bp_dtype dtype) {
    std::vector<int32_t> candidates;
    const int32_t values = static_cast<int32_t>(p.inputs.size() + p.instrs.size());
    for (int32_t v = 0; v < values; ++v)
      if (p.dtype_of_value(v) == dtype) candidates.push_back(v);
    const size_t n = candidates.size();  // never 0: an input of every dtype
    return candidates[pick(4) == 0 ? pick(n) : n - 1 - pick(std::min<size_t>(n, 3))];
  }

  std::mt19937_64 rng_;
};

}  // namespace

namespace {

// Every two-input operator of the family on every dtype it is defined for
// (the comparisons: every dtype), in every layout.
void check_two_input_family(int32_t family, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (bp_op op : ops_in(family))
    for (bp_dtype dtype : kAllTypes) {
      if (!defined_for(op, dtype)) continue;
      INFO(op_name(op) << ", " << dtype_name(dtype));
      check_every_layout(
          [&](Buffers &s, const Layout &la, const Layout &lb) { return binary_program(s, op, dtype, la, lb, rng); });
    }
}

}  // namespace

TEST_CASE("fused binary operators match execute op by op for every dtype, scalar on either side",
          "[fused][sweep]") {
  check_two_input_family(BP_OP_FAMILY_BINARY, 41);
}

TEST_CASE("fused comparisons match execute op by op for every dtype, NaN included", "[fused][sweep]") {
  check_two_input_family(BP_OP_FAMILY_COMPARE, 42);
}

TEST_CASE("fused unary operators match execute op by op, chained on their own result", "[fused][sweep]") {
  std::mt19937_64 rng(43);
  for (bp_op op : ops_in(BP_OP_FAMILY_UNARY))
    for (bp_dtype dtype : kAllTypes) {
      if (!defined_for(op, dtype)) continue;
      INFO(op_name(op) << ", " << dtype_name(dtype));
      // A predicate's bool result is no operand of its own: it runs once.
      const bp_dtype out = out_dtype(op, dtype);
      check_every_layout([&](Buffers &s, const Layout &la, const Layout &) {
        Program p;
        p.inputs.push_back(s.view(random_tensor(dtype, la, rng, values_for(op, false))));
        if (out == dtype) {
          p.instrs = {fused_instr(op, dtype, dtype, {0}), fused_instr(op, dtype, dtype, {1})};
          p.output_values = {2, 1};
        } else {
          p.instrs = {fused_instr(op, dtype, out, {0})};
          p.output_values = {1};
        }
        return p;
      });
    }
}

TEST_CASE("fused WHERE and COPY match execute op by op for every dtype pair", "[fused][sweep]") {
  std::mt19937_64 rng(44);
  for (bp_dtype dtype : kAllTypes)
    for (bp_dtype to : kAllTypes) {
      INFO(dtype_name(dtype) << " -> " << dtype_name(to));
      check_every_layout([&](Buffers &s, const Layout &la, const Layout &lb) {
        Program p;
        p.inputs = {s.view(random_tensor(BP_BOOL, lb, rng)), s.view(random_tensor(dtype, la, rng)),
                    s.view(random_tensor(dtype, lb, rng))};
        p.instrs = {fused_instr(BP_OP_WHERE, dtype, dtype, {0, 1, 2}), fused_instr(BP_OP_COPY, dtype, to, {3}),
                    fused_instr(BP_OP_COPY, dtype, to, {1})};
        p.output_values = {4, 5};
        return p;
      });
    }
}

TEST_CASE("the benchmark chain x**2 - 0.5, then **3 - 0.2, fused matches execute op by op", "[fused]") {
  std::mt19937_64 rng(45);
  for (bp_dtype dtype : kFloatTypes)
    for (const Shape &shape : {Shape{100003}, Shape{2048}, Shape{2049}, Shape{513}, Shape{63}, Shape{}}) {
      INFO(dtype_name(dtype));
      Buffers s(plugin());
      Program p;
      p.inputs.push_back(s.view(random_tensor(dtype, dense(shape), rng, Values::general)));
      p.instrs = {fused_instr(BP_OP_POW, dtype, dtype, {0}, BP_SCALAR_RHS, 2.0),
                  fused_instr(BP_OP_SUB, dtype, dtype, {1}, BP_SCALAR_RHS, 0.5),
                  fused_instr(BP_OP_POW, dtype, dtype, {2}, BP_SCALAR_RHS, 3.0),
                  fused_instr(BP_OP_SUB, dtype, dtype, {3}, BP_SCALAR_RHS, 0.2)};
      p.output_values = {4};
      check_fused(s, p, shape);
    }
}

TEST_CASE("chains of two cheap float instructions match execute op by op", "[fused]") {
  std::mt19937_64 rng(50);
  for (bp_dtype dtype : kFloatTypes) {
    const auto rhs = [&](int32_t op, double scalar) { return fused_instr(op, dtype, dtype, {0}, BP_SCALAR_RHS, scalar); };
    const auto lhs = [&](int32_t op, double scalar) { return fused_instr(op, dtype, dtype, {0}, BP_SCALAR_LHS, scalar); };
    const auto unary = [&](int32_t op) { return fused_instr(op, dtype, dtype, {0}); };
    const std::vector<bp_fused_instr> stages = {
        rhs(BP_OP_ADD, 0.75),     rhs(BP_OP_SUB, 0.75),     rhs(BP_OP_MUL, 0.75),  rhs(BP_OP_DIV, 0.75),
        rhs(BP_OP_MAXIMUM, 0.75), rhs(BP_OP_MINIMUM, 0.75), rhs(BP_OP_POW, 2.0),   rhs(BP_OP_POW, 3.0),
        rhs(BP_OP_POW, 2.5),      lhs(BP_OP_ADD, -1.5),     lhs(BP_OP_SUB, -1.5),  lhs(BP_OP_MUL, -1.5),
        lhs(BP_OP_DIV, -1.5),     lhs(BP_OP_POW, 2.0),      unary(BP_OP_NEG),      unary(BP_OP_ABS),
        unary(BP_OP_SQUARE),      unary(BP_OP_RELU),        unary(BP_OP_EXP),
        fused_instr(BP_OP_LT, dtype, BP_BOOL, {0}, BP_SCALAR_RHS, 0.75)};
    for (size_t a = 0; a < stages.size(); ++a)
      for (size_t b = 0; b < stages.size(); ++b) {
        if (stages[a].out_dtype != dtype) continue;
        INFO(dtype_name(dtype) << ": " << op_name(stages[a].op) << " then " << op_name(stages[b].op));
        Buffers s(plugin());
        const Shape shape = {b % 2 ? 1000 : 513};
        Program p;
        p.inputs.push_back(s.view(random_tensor(dtype, b % 3 ? dense(shape) : spaced(shape), rng)));
        p.instrs = {stages[a], stages[b]};
        p.instrs[1].args[0] = 1;
        // The first result as an output too, now and then: then it is no pair.
        p.output_values = {2};
        if (a % 4 == 0) p.output_values.push_back(1);
        check_fused(s, p, shape);
      }
  }
}

TEST_CASE("random long programs over every dtype match execute op by op", "[fused]") {
  RandomProgram generator(46);
  const auto check_random = [&](const Shape &shape, int32_t n_instrs) {
    Buffers s(plugin());
    check_fused(s, generator.make(s, shape, n_instrs), shape);
  };
  for (int round = 0; round < 40; ++round)
    for (const Shape &shape : elementwise_shapes()) check_random(shape, 12);
  for (int round = 0; round < 6; ++round) {
    check_random(kLarge, BP_FUSED_MAX_INSTRS);
    check_random({5000}, BP_FUSED_MAX_INSTRS);
  }
}

TEST_CASE("fused results do not depend on the thread count", "[fused]") {
  const Shape shape = {7, 40001};
  std::vector<Bytes> results;
  int64_t size = 0;
  for (const char *threads : {"1", "2", "5"}) {
    INFO(threads << " threads");
    PluginHandle handle("cpu-openblas", {{"threads", threads}});
    Buffers s(handle);
    const Program p = RandomProgram(47).make(s, shape, 30);  // the same program and inputs each time
    check_fused(s, p, shape);
    std::vector<bp_plugin_tensor> outputs;
    for (int32_t v : p.output_values) outputs.push_back(sentinel_view(s, p.dtype_of_value(v), shape));
    const bp_fused_program prog = abi_program(p, outputs);
    REQUIRE(s.api().execute_fused(0, &prog) == BP_OK);
    results.push_back(elements(s, outputs[0]));
    size = dtype_size(outputs[0].dtype);
  }
  check_same(results[1], results[0], size);
  check_same(results[2], results[0], size);
}

TEST_CASE("fused outputs may take an input unchanged, or one value twice", "[fused]") {
  Buffers s(plugin());
  std::mt19937_64 rng(48);
  for (const Shape &shape : {Shape{5, 7}, kLarge, Shape{}}) {
    Program p;
    p.inputs = {s.view(random_tensor(BP_FLOAT32, transposed(shape), rng)),
                s.view(random_tensor(BP_INT64, spaced(shape), rng)),
                s.view(random_tensor(BP_INT32, dense(shape), rng))};
    p.instrs = {fused_instr(BP_OP_NEG, BP_FLOAT32, BP_FLOAT32, {0})};
    p.output_values = {0, 3, 1, 3, 2};
    check_fused(s, p, shape);
  }
}

TEST_CASE("a fused output in place on an input reads every element before writing it", "[fused]") {
  Buffers s(plugin());
  std::mt19937_64 rng(49);
  for (const Shape &shape : {Shape{3, 5}, kLarge, Shape{}}) {
    INFO("shape " << shape_text(shape));
    const Tensor a = random_tensor(BP_FLOAT64, dense(shape), rng), b = random_tensor(BP_FLOAT64, spaced(shape), rng);
    Program p;
    p.inputs = {s.view(a), s.view(b)};
    // x = a * b; y = x - a; outputs: y into a's own view, then x, then a (as it was).
    p.instrs = {fused_instr(BP_OP_MUL, BP_FLOAT64, BP_FLOAT64, {0, 1}), fused_instr(BP_OP_SUB, BP_FLOAT64, BP_FLOAT64, {2, 0})};
    p.output_values = {3, 2, 0};
    const std::vector<Bytes> expected = op_by_op(s, p, shape);
    const std::vector<bp_plugin_tensor> outputs = {p.inputs[0], sentinel_view(s, BP_FLOAT64, shape),
                                                   sentinel_view(s, BP_FLOAT64, shape)};
    const bp_fused_program prog = abi_program(p, outputs);
    const bp_status status = s.api().execute_fused(0, &prog);
    INFO("execute_fused: " << (status == BP_OK ? "" : s.error()));
    REQUIRE(status == BP_OK);
    for (size_t j = 0; j < outputs.size(); ++j) {
      INFO("output " << j);
      check_same(elements(s, outputs[j]), expected[j], 8);
    }
  }
  // The program that leaves its input as it is, in place.
  const Tensor a = random_tensor(BP_INT32, dense({40000}), rng);
  Program p;
  p.inputs.push_back(s.view(a));
  p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0})};
  p.output_values = {0};
  const bp_fused_program prog = abi_program(p, p.inputs);
  REQUIRE(s.api().execute_fused(0, &prog) == BP_OK);
  check_same(elements(s, p.inputs[0]), a.bytes, 4);
}

TEST_CASE("execute_fused refuses what it cannot run and writes nothing", "[fused]") {
  Buffers s(plugin());
  const Shape shape = {4, 3};
  const bp_plugin_tensor x = s.tensor<int32_t>(shape, std::vector<int32_t>(12, 7));
  const bp_plugin_tensor out = sentinel_view(s, BP_INT32, shape);
  const Bytes before = whole_buffer(s, out);
  const auto run = [&](const Program &p, int32_t device = 0) {
    const std::vector<bp_plugin_tensor> outputs = {out};
    const bp_fused_program prog = abi_program(p, outputs);
    return s.api().execute_fused(device, &prog);
  };
  Program p;
  p.inputs.push_back(x);
  p.output_values = {2};

  SECTION("a triple the ABI does not define: int32 DIV, after a valid instruction") {
    p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0}), fused_instr(BP_OP_DIV, BP_INT32, BP_INT32, {1, 0})};
    check_error(s, run(p), BP_ERR_UNSUPPORTED, {"fused instruction 1", "div"});
  }
  SECTION("an operand that is not an earlier value") {
    p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {1}), fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0})};
    check_error(s, run(p), BP_ERR_INVALID_ARGUMENT, {"fused instruction 0"});
  }
  SECTION("a non-elementwise operator") {
    p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0}), fused_instr(BP_OP_SUM, BP_INT32, BP_INT64, {1})};
    check_error(s, run(p), BP_ERR_INVALID_ARGUMENT, {"fused instruction 1"});
  }
  SECTION("an output value of another dtype") {
    p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0}), fused_instr(BP_OP_COPY, BP_INT32, BP_FLOAT32, {1})};
    check_error(s, run(p), BP_ERR_DTYPE);
  }
  SECTION("a device other than 0") {
    p.instrs = {fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {0}), fused_instr(BP_OP_NEG, BP_INT32, BP_INT32, {1})};
    check_error(s, run(p, 1), BP_ERR_UNKNOWN_DEVICE);
  }
  SECTION("no program") { check_error(s, s.api().execute_fused(0, nullptr), BP_ERR_INVALID_ARGUMENT); }
  CHECK(whole_buffer(s, out) == before);
}
