// execute_fused: every program's outputs are bit for bit what running its
// instructions one by one through the reference's execute into temporaries
// leaves (plugin.h's definition), for every family, dtype and scalar mode,
// on broadcast, strided, rank-0 and empty views, with several outputs and
// one in place; malformed programs are refused with plugin.h's status and
// write nothing.
#include <cstddef>
#include <functional>

#include "reference_test.hpp"

using namespace ref_test;

namespace {

// A program over views of the reference's buffers; abi() points into it.
struct Program {
  std::vector<bp_plugin_tensor> inputs;
  std::vector<bp_fused_instr> instrs;
  std::vector<bp_plugin_tensor> outputs;
  std::vector<int32_t> output_values;

  bp_fused_program abi() const { return fused_program(inputs, instrs, outputs, output_values); }
  Shape shape() const { return Shape(outputs[0].shape, outputs[0].shape + outputs[0].rank); }
  // A dense output of `shape` for every instruction's value.
  void output_every_value(Buffers &b, const Shape &shape) {
    for (size_t k = 0; k < instrs.size(); ++k) {
      outputs.push_back(b.empty(static_cast<bp_dtype>(instrs[k].out_dtype), shape));
      output_values.push_back(int32_t(inputs.size() + k));
    }
  }
};

// The elements of a view in C order, as bytes.
Bytes elements(Buffers &b, const bp_plugin_tensor &t) {
  const int64_t size = dtype_size(t.dtype);
  int64_t count = 1, span = 1;
  for (int d = 0; d < t.rank; ++d) {
    count *= t.shape[d];
    span += (t.shape[d] - 1) * t.strides[d];
  }
  Bytes out;
  if (count == 0) return out;
  const Bytes raw = b.plugin().download<uint8_t>(t.buffer, size_t(t.offset + uint64_t(span * size)));
  std::vector<int64_t> index(size_t(t.rank), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t at = 0;
    for (int d = 0; d < t.rank; ++d) at += index[size_t(d)] * t.strides[d];
    const uint8_t *p = raw.data() + t.offset + uint64_t(at * size);
    out.insert(out.end(), p, p + size);
    for (int d = t.rank - 1; d >= 0; --d) {
      if (++index[size_t(d)] < t.shape[d]) break;
      index[size_t(d)] = 0;
    }
  }
  return out;
}

// Each output's elements as the instructions run one by one through
// execute would leave them (run before the program, which may write over
// an input in place).
std::vector<Bytes> op_by_op(Buffers &b, const Program &p) {
  std::vector<bp_plugin_tensor> values = p.inputs;
  const Shape shape = p.shape();
  for (const bp_fused_instr &in : p.instrs) {
    std::vector<bp_plugin_tensor> args;
    for (int a = 0; a < 3 && in.args[a] >= 0; ++a) args.push_back(values[size_t(in.args[a])]);
    const bp_plugin_tensor temporary = b.empty(static_cast<bp_dtype>(in.out_dtype), shape);
    b.exec(in.op, args, temporary, attrs_with(in.scalar, 0, 0, in.scalar_mode));
    values.push_back(temporary);
  }
  std::vector<Bytes> out;
  for (int32_t v : p.output_values) out.push_back(elements(b, values[size_t(v)]));
  return out;
}

// Runs the program and checks every output against op_by_op's, byte for byte.
void check_against_op_by_op(Reference &ref, const Program &p, const std::string &what) {
  INFO(what);
  const std::vector<Bytes> expected = op_by_op(ref, p);
  const bp_fused_program program = p.abi();
  const bp_status status = ref.api().execute_fused(0, &program);
  INFO("execute_fused: " << (status == BP_OK ? "" : ref.error()));
  REQUIRE(status == BP_OK);
  for (size_t j = 0; j < p.outputs.size(); ++j) {
    INFO("output " << j << " (value " << p.output_values[j] << ")");
    CHECK(elements(ref, p.outputs[j]) == expected[j]);
  }
}

// Values that keep integer POW short and cover NaN, infinities and -0 for floats.
Values values_for(int32_t op, int32_t dtype, int input) {
  if (op == BP_OP_POW && !is_float(dtype) && input == 1) return Values::exponent;
  return Values::general;
}

// Inputs of `shape`: a strided one (every other element) and one broadcast
// along the first axis (all of them on rank 0), of `dtype`.
std::vector<bp_plugin_tensor> strided_and_broadcast(Reference &ref, int32_t op, bp_dtype dtype, const Shape &shape,
                                                    std::mt19937_64 &rng) {
  std::vector<bool> outer(shape.size(), false);
  if (!outer.empty()) outer[0] = true;
  return {ref.view(random_tensor(dtype, spaced(shape), rng, values_for(op, dtype, 0))),
          ref.view(random_tensor(dtype, broadcast(shape, outer), rng, values_for(op, dtype, 1)))};
}

const std::vector<Shape> kShapes = {{4, 5}, {}, {0, 3}};

}  // namespace

TEST_CASE("binary and compare programs in every scalar mode agree with execute op by op", "[fused]") {
  Reference ref;
  std::mt19937_64 rng(11);
  std::vector<bp_op> ops = ops_in(BP_OP_FAMILY_BINARY);
  for (bp_op op : ops_in(BP_OP_FAMILY_COMPARE)) ops.push_back(op);
  for (const Shape &shape : kShapes)
    for (bp_op op : ops)
      for (bp_dtype dtype : kAllTypes) {
        if (!defined_for(op, dtype)) continue;
        const bp_dtype out = out_dtype(op, dtype);
        Program p;
        p.inputs = strided_and_broadcast(ref, op, dtype, shape, rng);
        const double scalar = is_float(dtype) ? (op == BP_OP_POW ? 0.5 : -2.5) : 3;
        p.instrs = {fused_instr(op, dtype, out, {0, 1}), fused_instr(op, dtype, out, {0}, BP_SCALAR_RHS, scalar),
                    fused_instr(op, dtype, out, {1}, BP_SCALAR_LHS, scalar)};
        p.output_every_value(ref, shape);
        check_against_op_by_op(ref, p, std::string(op_name(op)) + " " + dtype_name(dtype) + " " + shape_text(shape));
      }
}

TEST_CASE("scalar operands NaN, infinities, -0 and beyond an integer's range convert as execute converts them",
          "[fused]") {
  Reference ref;
  std::mt19937_64 rng(12);
  for (bp_dtype dtype : kNumericTypes)
    for (double scalar : {kNaN, kInf, -kInf, -0.0, 1e300, -1e19, 0.1}) {
      Program p;
      const Shape shape = {3, 4};
      p.inputs = strided_and_broadcast(ref, BP_OP_ADD, dtype, shape, rng);
      p.instrs = {fused_instr(BP_OP_ADD, dtype, dtype, {0}, BP_SCALAR_RHS, scalar),
                  fused_instr(BP_OP_MAXIMUM, dtype, dtype, {1}, BP_SCALAR_LHS, scalar),
                  fused_instr(BP_OP_LT, dtype, BP_BOOL, {0}, BP_SCALAR_RHS, scalar)};
      p.output_every_value(ref, shape);
      check_against_op_by_op(ref, p, std::string(dtype_name(dtype)) + " scalar " + std::to_string(scalar));
    }
}

TEST_CASE("unary programs agree with execute op by op", "[fused]") {
  Reference ref;
  std::mt19937_64 rng(13);
  for (const Shape &shape : kShapes)
    for (bp_op op : ops_in(BP_OP_FAMILY_UNARY))
      for (bp_dtype dtype : kAllTypes) {
        if (!defined_for(op, dtype)) continue;
        Program p;
        p.inputs = strided_and_broadcast(ref, op, dtype, shape, rng);
        // The op of the op: an intermediate value feeds the next instruction
        // (a predicate's bool result cannot: it runs once).
        const bp_dtype out = bp_dtype(bp_vocab_out_dtype(op, dtype));
        if (out == dtype)
          p.instrs = {fused_instr(op, dtype, dtype, {0}), fused_instr(op, dtype, dtype, {1}), fused_instr(op, dtype, dtype, {2})};
        else
          p.instrs = {fused_instr(op, dtype, out, {0})};
        p.output_every_value(ref, shape);
        check_against_op_by_op(ref, p, std::string(op_name(op)) + " " + dtype_name(dtype) + " " + shape_text(shape));
      }
}

TEST_CASE("where and copy programs of every dtype pair agree with execute op by op", "[fused]") {
  Reference ref;
  std::mt19937_64 rng(14);
  for (const Shape &shape : kShapes)
    for (bp_dtype dtype : kAllTypes)
      for (bp_dtype to : kAllTypes) {
        Program p;
        p.inputs = strided_and_broadcast(ref, BP_OP_COPY, dtype, shape, rng);
        p.inputs.push_back(ref.view(random_tensor(BP_BOOL, transposed(shape), rng)));
        p.instrs = {fused_instr(BP_OP_WHERE, dtype, dtype, {2, 0, 1}), fused_instr(BP_OP_COPY, dtype, to, {3}),
                    fused_instr(BP_OP_COPY, to, dtype, {4})};
        p.output_every_value(ref, shape);
        check_against_op_by_op(ref, p, std::string("copy ") + dtype_name(dtype) + " -> " + dtype_name(to) + " " +
                                           shape_text(shape));
      }
}

TEST_CASE("a float32 chain with broadcast and strided inputs, several outputs and one in place", "[fused]") {
  Reference ref;
  std::mt19937_64 rng(15);
  const Shape shape = {4, 6};
  Program p;
  p.inputs = {ref.view(random_tensor(BP_FLOAT32, dense(shape), rng)),
              ref.view(random_tensor(BP_FLOAT32, broadcast(shape, {true, false}), rng)),
              ref.view(random_tensor(BP_FLOAT32, spaced(shape), rng))};
  p.instrs = {fused_instr(BP_OP_MUL, BP_FLOAT32, BP_FLOAT32, {0, 1}),  // v3
              fused_instr(BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, {3, 2}),  // v4: a float32 product rounded, then a sum
              fused_instr(BP_OP_EXP, BP_FLOAT32, BP_FLOAT32, {4}),     // v5
              fused_instr(BP_OP_GT, BP_FLOAT32, BP_BOOL, {5}, BP_SCALAR_RHS, 1.0),
              fused_instr(BP_OP_WHERE, BP_FLOAT32, BP_FLOAT32, {6, 4, 0}),
              fused_instr(BP_OP_COPY, BP_FLOAT32, BP_FLOAT64, {7})};
  // Value 7 back into input 0's very view: every element is read first.
  p.outputs = {p.inputs[0], ref.empty(BP_FLOAT32, shape), ref.empty(BP_BOOL, shape), ref.empty(BP_FLOAT64, shape)};
  p.output_values = {7, 3, 6, 8};
  check_against_op_by_op(ref, p, "mul, add, exp, gt, where, copy");
}

TEST_CASE("a program the ABI does not define, or a malformed one, is refused and writes nothing", "[fused]") {
  Reference ref;
  const Shape shape = {3, 4};
  Program base;
  base.inputs = {ref.tensor<float>(shape, std::vector<float>(12, 1.5f)),
                 ref.tensor<float>(shape, std::vector<float>(12, 2.0f)),
                 ref.tensor<int32_t>(shape, std::vector<int32_t>(12, 7))};
  base.instrs = {fused_instr(BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, {0, 1})};
  base.outputs = {ref.tensor<float>(shape, std::vector<float>(12, -9.0f)),
                  ref.tensor<float>(shape, std::vector<float>(12, -9.0f))};
  base.output_values = {3, 3};

  // Each case: a copy of the base program broken one way, the status, and
  // words the message must contain.
  const auto refused = [&](const char *what, bp_status expected, const std::vector<std::string> &words,
                           const std::function<void(Program &, bp_fused_program &, int32_t &)> &mutate) {
    INFO(what);
    Program p = base;
    bp_fused_program program = p.abi();
    int32_t device = 0;
    mutate(p, program, device);
    check_error(ref, ref.api().execute_fused(device, &program), expected, words);
    for (const bp_plugin_tensor &out : base.outputs) check_values(ref.values<float>(out), std::vector<float>(12, -9.0f));
  };
  refused("an operand out of range", BP_ERR_INVALID_ARGUMENT, {"fused instruction 0", "value 3"},
          [](Program &p, bp_fused_program &, int32_t &) { p.instrs[0].args[1] = 3; });
  refused("an operand of the wrong dtype", BP_ERR_DTYPE, {"fused instruction 0", "int32"},
          [](Program &p, bp_fused_program &, int32_t &) { p.instrs[0].args[1] = 2; });
  refused("two outputs on the same elements", BP_ERR_INVALID_ARGUMENT, {"output 1 overlaps output 0"},
          [](Program &p, bp_fused_program &, int32_t &) { p.outputs[1] = p.outputs[0]; });
  refused("a struct_size smaller than 1.3's", BP_ERR_INVALID_ARGUMENT, {"struct_size"},
          [](Program &, bp_fused_program &program, int32_t &) {
            program.struct_size = uint32_t(offsetof(bp_fused_program, output_values));
          });
  refused("a reduction as an instruction", BP_ERR_INVALID_ARGUMENT, {"sum", "not an elementwise operator"},
          [](Program &p, bp_fused_program &, int32_t &) {
            p.instrs[0].op = BP_OP_SUM;
            p.instrs[0].args[1] = -1;
          });
  refused("add float32 -> int64, which the ABI does not define", BP_ERR_UNSUPPORTED, {"add", "int64"},
          [](Program &p, bp_fused_program &, int32_t &) { p.instrs[0].out_dtype = BP_INT64; });
  refused("a device that does not exist", BP_ERR_UNKNOWN_DEVICE, {"execute_fused", "reference:1"},
          [](Program &, bp_fused_program &, int32_t &device) { device = 1; });
  refused("NULL instrs", BP_ERR_INVALID_ARGUMENT, {"NULL"},
          [](Program &, bp_fused_program &program, int32_t &) { program.instrs = nullptr; });
}
