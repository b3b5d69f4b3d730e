#include "fused_program.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

int32_t FusedCase::value_dtype(int32_t v) const {
  if (v < int32_t(inputs.size())) return inputs[size_t(v)].dtype;
  return instrs[size_t(v) - inputs.size()].out_dtype;
}

namespace {

std::string view_text(const ViewDesc &v) {
  return std::string(dtype_name(v.dtype)) + " strides " + shape_text(v.rank, v.strides);
}

std::string scalar_text(double x) { return format("%.17g", x); }

}  // namespace

std::string FusedCase::text() const {
  const ViewDesc &shape = outputs[0];
  std::string s = label + ", shape " + shape_text(shape.rank, shape.shape) + ":";
  for (size_t i = 0; i < inputs.size(); ++i) s += format(" v%zu = input %zu ", i, i) + view_text(inputs[i]) + ";";
  for (size_t k = 0; k < instrs.size(); ++k) {
    const bp_fused_instr &in = instrs[k];
    s += format(" v%zu = %s %s(", inputs.size() + k, op_name(in.op), dtype_name(in.dtype));
    if (in.scalar_mode == BP_SCALAR_LHS) s += scalar_text(in.scalar) + ", ";
    for (int a = 0; a < 3 && in.args[a] >= 0; ++a) s += format("%sv%d", a ? ", " : "", int(in.args[a]));
    if (in.scalar_mode == BP_SCALAR_RHS) s += ", " + scalar_text(in.scalar);
    s += std::string(") -> ") + dtype_name(in.out_dtype) + ";";
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    bool in_place = false;
    for (const ViewDesc &v : inputs) in_place = in_place || v.storage == outputs[j].storage;
    s += format(" output %zu = v%d%s;", j, int(output_values[j]), in_place ? " (in place)" : "");
  }
  return s;
}

bp_fused_instr fused_instr(int32_t op, int32_t dtype, int32_t out_dtype, const std::vector<int32_t> &args,
                           int32_t scalar_mode, double scalar) {
  bp_fused_instr in;
  std::memset(&in, 0, sizeof in);
  in.op = op;
  in.dtype = dtype;
  in.out_dtype = out_dtype;
  in.scalar_mode = scalar_mode;
  in.scalar = scalar;
  for (size_t a = 0; a < 3; ++a) in.args[a] = a < args.size() ? args[a] : -1;
  return in;
}

bp_fused_instr blank_instr(const Combo &c) { return fused_instr(c.op, c.dtype, c.out_dtype); }

bp_fused_program fused_program(const std::vector<bp_plugin_tensor> &inputs, const std::vector<bp_fused_instr> &instrs,
                               const std::vector<bp_plugin_tensor> &outputs, const std::vector<int32_t> &output_values) {
  bp_fused_program p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.n_inputs = int32_t(inputs.size());
  p.n_instrs = int32_t(instrs.size());
  p.n_outputs = int32_t(outputs.size());
  p.inputs = inputs.empty() ? nullptr : inputs.data();
  p.instrs = instrs.data();
  p.outputs = outputs.data();
  p.output_values = output_values.data();
  return p;
}

std::vector<Combo> fusable_combos(Plugin &p, int32_t device) {
  std::vector<Combo> out;
  for (const Combo &c : declared_combos(p, device)) {
    const int32_t family = op_family(c.op);
    if ((family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE || family == BP_OP_FAMILY_WHERE ||
         family == BP_OP_FAMILY_UNARY || family == BP_OP_FAMILY_COPY) &&
        bp_vocab_allows(c.op, c.dtype, c.out_dtype))
      out.push_back(c);
  }
  return out;
}

namespace {

// Input elements: mostly moderate values, with the special ones of the
// dtype now and then. The most negative integer is left out: ABS of it is
// the one elementwise result plugin.h leaves undefined.
Val input_value(std::mt19937_64 &rng, int32_t dtype) {
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  if (is_bool(dtype)) return draw(rng, dtype, {});
  // The 8- and 16-bit dtypes take their own special values (largest finite,
  // subnormals, limits of the integer).
  if (r < 0.08 && bp_vocab_dtype_size(dtype) < 4) {
    const std::vector<Val> sp = specials_for(BP_OP_ABS, dtype);
    return sp[rng() % sp.size()];
  }
  if (is_float(dtype)) {
    if (r < 0.08) {
      const double inf = std::numeric_limits<double>::infinity();
      const double specials[] = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, -0.0, 0.0, 1e30, -1e30, 0.5};
      return {specials[rng() % 8], 0};
    }
    if (r < 0.2) return draw(rng, dtype, {Domain::ints, -5, 5});
    return draw(rng, dtype, {Domain::uniform, -4, 4});
  }
  if (r < 0.08) {
    const int64_t max = bp_vocab_dtype_size(dtype) == 4 ? INT32_MAX : INT64_MAX;
    const int64_t specials[] = {max, -max, -1, 0, 1};
    const int64_t x = specials[rng() % 5];
    return {double(x), x};
  }
  if (r < 0.4) return draw(rng, dtype, {Domain::ints, -5, 5});
  return draw(rng, dtype, {Domain::ints, -100, 100});
}

// A scalar operand: given as a float64 and converted to the operands' dtype
// as by COPY, so NaN, infinities and values beyond an integer's range
// saturate as plugin.h says. Integer POW takes small exponents only (a
// plugin may multiply them out one by one).
double scalar_for(std::mt19937_64 &rng, int32_t op, int32_t dtype) {
  if (op == BP_OP_POW && !is_float(dtype)) return double(int64_t(rng() % 12) - 2);
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double floats[] = {nan, inf, -inf, -0.0, 0.5, 2, -3, 0.1, 1e30, 1e300, 1e10, 1.5};
  const double ints[] = {0, 1, -1, 7, -13, 2.5, 1e10, -1e19, nan, -0.0, 3, 100};
  return is_float(dtype) ? floats[rng() % 12] : ints[rng() % 12];
}

// plugin.h lets a view without elements have any strides, but
// bp_sdk_check_fused (1.3) holds outputs to the C-order product of the
// extents even then (0 on the axes before an empty one), so a plugin built
// on it would refuse the kit's strides: an empty output gets those.
void empty_view_strides(ViewDesc &v) {
  if (numel(v) != 0) return;
  int64_t stride = 1;
  for (int d = v.rank - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= v.shape[d];
  }
}

struct Generator {
  std::mt19937_64 rng;
  FusedCase fc;
  Shape shape;

  explicit Generator(uint64_t seed) : rng(seed) {}

  size_t pick(size_t n) { return size_t(rng() % n); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

  void choose_shape() {
    const double r = std::uniform_real_distribution<double>(0, 1)(rng);
    if (r < 0.05) {
      shape = {3, 0, 2};
    } else if (r < 0.15) {
      shape = {int64_t(33 + pick(40)), int64_t(65 + pick(70))};
    } else {
      const size_t rank = pick(5);
      for (size_t d = 0; d < rank; ++d) shape.push_back(int64_t(1 + pick(6)));
    }
  }

  // An input of `dtype`: dense, transposed, stepped, broadcast along random
  // axes, or (for `in_place`) a dense view with guard bytes an output will share.
  void add_input(int32_t dtype, bool in_place) {
    ViewDesc v;
    const size_t layout = in_place ? 0 : pick(5);
    if (layout == 1)
      v = add_view(fc.data, dtype, shape, transposed(), false);
    else if (layout == 2)
      v = add_view(fc.data, dtype, shape, stepped(), false);
    else
      v = add_view(fc.data, dtype, shape, dense(), in_place);
    if (layout >= 3 && v.rank > 0) {
      for (int d = 0; d < v.rank; ++d)
        if (layout == 4 || chance(0.5)) v.strides[d] = 0;
    }
    fill(fc.data, v, [&](const int64_t *, int64_t) { return input_value(rng, dtype); });
    fc.inputs.push_back(v);
  }

  // The values of `dtype` an operand may take, the most recent first.
  std::vector<int32_t> values_of(int32_t dtype, bool inputs_only) const {
    std::vector<int32_t> out;
    const int32_t end = inputs_only ? int32_t(fc.inputs.size()) : fc.n_values();
    for (int32_t v = end - 1; v >= 0; --v)
      if (fc.value_dtype(v) == dtype) out.push_back(v);
    return out;
  }

  // A recent value more often than an old one, so that chains form.
  int32_t operand(const std::vector<int32_t> &candidates) {
    if (candidates.size() > 1 && chance(0.6)) return candidates[pick(std::min<size_t>(2, candidates.size()))];
    return candidates[pick(candidates.size())];
  }

  // Appends one instruction of `c` when the values so far can feed it.
  bool add_instr(const Combo &c) {
    const int32_t family = op_family(c.op);
    // ABS of the most negative integer is undefined: integer ABS reads inputs only.
    const bool abs_of_int = c.op == BP_OP_ABS && !is_float(c.dtype);
    const std::vector<int32_t> same = values_of(c.dtype, abs_of_int);
    if (same.empty()) return false;
    bp_fused_instr in = blank_instr(c);
    if (family == BP_OP_FAMILY_BINARY || family == BP_OP_FAMILY_COMPARE) {
      const bool int_pow = c.op == BP_OP_POW && !is_float(c.dtype);
      const double r = std::uniform_real_distribution<double>(0, 1)(rng);
      in.scalar_mode = int_pow || r < 0.25 ? BP_SCALAR_RHS : r < 0.4 ? BP_SCALAR_LHS : BP_SCALAR_NONE;
      in.args[0] = operand(same);
      if (in.scalar_mode == BP_SCALAR_NONE)
        in.args[1] = operand(same);
      else
        in.scalar = scalar_for(rng, c.op, c.dtype);
    } else if (family == BP_OP_FAMILY_WHERE) {
      const std::vector<int32_t> conditions = values_of(BP_BOOL, false);
      if (conditions.empty()) return false;
      in.args[0] = operand(conditions);
      in.args[1] = operand(same);
      in.args[2] = operand(same);
    } else {
      in.args[0] = operand(same);
    }
    fc.instrs.push_back(in);
    return true;
  }
};

}  // namespace

FusedCase random_program(const std::vector<Combo> &combos, int32_t dtype, uint64_t seed, const std::string &label) {
  Generator g(seed);
  g.fc.label = label;
  g.choose_shape();
  // Inputs: mostly of the main dtype, a bool condition now and then, and
  // now and then one of another dtype the combos take.
  const size_t n_inputs = 1 + g.pick(3);
  const bool in_place = g.chance(0.2);
  for (size_t i = 0; i < n_inputs; ++i) g.add_input(dtype, in_place && i == 0);
  if (g.chance(0.3)) g.add_input(BP_BOOL, false);
  if (g.chance(0.3)) g.add_input(combos[g.pick(combos.size())].dtype, false);

  // Instructions: a combo whose operand dtype is the latest value's most of
  // the time (chains), any combo the values can feed otherwise.
  const size_t n_instrs = 1 + g.pick(12);
  for (size_t tries = 0; g.fc.instrs.size() < n_instrs && tries < 200; ++tries) {
    const int32_t latest = g.fc.value_dtype(g.fc.n_values() - 1);
    std::vector<Combo> pool;
    for (const Combo &c : combos)
      if (!g.chance(0.7) || c.dtype == latest) pool.push_back(c);
    if (pool.empty()) continue;
    g.add_instr(pool[g.pick(pool.size())]);
  }
  if (g.fc.instrs.empty()) return g.fc;

  // Outputs: the last value, then some intermediate ones; the in-place
  // input's view is reused by the first output of its dtype.
  const int32_t n_values = g.fc.n_values(), first_instr = int32_t(g.fc.inputs.size());
  const size_t n_outputs = 1 + g.pick(std::min<size_t>(4, g.fc.instrs.size()));
  bool in_place_used = !in_place;
  for (size_t j = 0; j < n_outputs; ++j) {
    const int32_t v = j == 0 ? n_values - 1 : first_instr + int32_t(g.pick(g.fc.instrs.size()));
    const int32_t out_dtype = g.fc.value_dtype(v);
    if (!in_place_used && out_dtype == g.fc.inputs[0].dtype) {
      g.fc.outputs.push_back(g.fc.inputs[0]);
      in_place_used = true;
    } else {
      g.fc.outputs.push_back(add_view(g.fc.data, out_dtype, g.shape, dense(), true));
    }
    g.fc.output_values.push_back(v);
  }
  for (ViewDesc &o : g.fc.outputs) {
    for (ViewDesc &in : g.fc.inputs)
      if (in.storage == o.storage) empty_view_strides(in);
    empty_view_strides(o);
  }
  return g.fc;
}

BoundProgram::BoundProgram(Plugin &p, int32_t device, const FusedCase &fc)
    : plugin_(p), device_(device), bound_(p, device, fc.data) {
  for (const ViewDesc &v : fc.inputs) inputs.push_back(bound_.tensor(v));
  for (const ViewDesc &v : fc.outputs) outputs.push_back(bound_.tensor(v));
  instrs = fc.instrs;
  output_values = fc.output_values;
  program = fused_program(inputs, instrs, outputs, output_values);
}

bp_status BoundProgram::run(int32_t device, const bp_fused_program *p) { return plugin_.execute_fused(device, p); }

FusedRun run_fused(Plugin &p, int32_t device, const FusedCase &fc) {
  FusedRun r;
  BoundProgram bound(p, device, fc);
  if (!bound.ok()) {
    r.status = BP_ERR_INTERNAL;
    r.failure = bound.failure();
    return r;
  }
  r.status = bound.run();
  if (r.status != BP_OK) r.failure = p.describe(r.status);
  std::string e = bound.read_all(&r.storages);
  if (!e.empty()) {
    r.failure = "after execute_fused, " + e;
    if (r.status == BP_OK) r.status = BP_ERR_INTERNAL;
  }
  return r;
}

namespace {

// Dense buffers on one device, freed at the end.
class Temporaries {
 public:
  explicit Temporaries(Plugin &p) : p_(p) {}
  ~Temporaries() {
    for (bp_buffer b : buffers_) p_.free(b);
  }
  bp_status add(int32_t device, uint64_t bytes, bp_buffer *out) {
    bp_status s = p_.alloc(device, bytes, out);
    if (s == BP_OK) buffers_.push_back(*out);
    return s;
  }

 private:
  Plugin &p_;
  std::vector<bp_buffer> buffers_;
};

}  // namespace

std::string run_op_by_op(Plugin &p, int32_t device, const FusedCase &fc, OpByOp *out) {
  BoundCase bound(p, device, fc.data);
  if (!bound.ok()) return bound.failure();
  const ViewDesc &shape = fc.outputs[0];
  const int64_t n = numel(shape);
  Temporaries temps(p);
  std::vector<bp_plugin_tensor> views;
  out->values.clear();
  for (const ViewDesc &v : fc.inputs) {
    views.push_back(bound.tensor(v));
    const size_t esize = size_t(bp_vocab_dtype_size(v.dtype));
    const Bytes &storage = fc.data.storages[size_t(v.storage)];
    Bytes elements;
    for_each_index(v, [&](const int64_t *idx, int64_t) {
      const uint8_t *src = storage.data() + byte_at(v, idx);
      elements.insert(elements.end(), src, src + esize);
    });
    out->values.push_back(std::move(elements));
  }
  for (size_t k = 0; k < fc.instrs.size(); ++k) {
    const bp_fused_instr &in = fc.instrs[k];
    const int64_t esize = bp_vocab_dtype_size(in.out_dtype);
    bp_buffer b = nullptr;
    bp_status s = temps.add(device, uint64_t(n * esize), &b);
    if (s != BP_OK) return format("alloc of a temporary for instruction %zu failed: ", k) + p.describe(s);
    ViewDesc dense_view = shape;
    dense_view.dtype = in.out_dtype;
    dense_view.offset = 0;
    bp_plugin_tensor result = bound.tensor(dense_view);
    result.buffer = b;
    bp_plugin_tensor args[3];
    int32_t n_args = 0;
    for (int a = 0; a < 3 && in.args[a] >= 0; ++a) args[n_args++] = views[size_t(in.args[a])];
    bp_op_attrs attrs;
    std::memset(&attrs, 0, sizeof attrs);
    attrs.struct_size = sizeof attrs;
    attrs.scalar_mode = in.scalar_mode;
    attrs.scalar = in.scalar;
    s = p.execute(device, in.op, &attrs, args, n_args, &result);
    if (s != BP_OK)
      return format("execute refused instruction %zu (%s): ", k, combo_name(in.op, in.dtype, in.out_dtype).c_str()) +
             p.describe(s);
    views.push_back(result);
    Bytes elements(size_t(n * esize));
    if (n > 0) {
      s = p.read(b, 0, elements.data(), elements.size());
      if (s != BP_OK) return format("read of instruction %zu's temporary failed: ", k) + p.describe(s);
    }
    out->values.push_back(std::move(elements));
  }
  // Each output's storage as it was, its elements set to their values.
  out->output_storages.clear();
  for (size_t j = 0; j < fc.outputs.size(); ++j) {
    const ViewDesc &o = fc.outputs[j];
    Bytes storage = fc.data.storages[size_t(o.storage)];
    const Bytes &value = out->values[size_t(fc.output_values[j])];
    const size_t esize = size_t(bp_vocab_dtype_size(o.dtype));
    for_each_index(o, [&](const int64_t *idx, int64_t pos) {
      std::memcpy(storage.data() + byte_at(o, idx), value.data() + size_t(pos) * esize, esize);
    });
    out->output_storages.push_back(std::move(storage));
  }
  return {};
}

FusedCase single_step(const FusedCase &fc, size_t k, const std::vector<Bytes> &values) {
  FusedCase step;
  const bp_fused_instr &in = fc.instrs[k];
  step.label = fc.label + format(", instruction %zu alone", k);
  Shape shape(fc.outputs[0].shape, fc.outputs[0].shape + fc.outputs[0].rank);
  bp_fused_instr alone = in;
  for (int a = 0; a < 3 && in.args[a] >= 0; ++a) {
    const int32_t v = in.args[a];
    ViewDesc view = add_view(step.data, fc.value_dtype(v), shape, dense(), false);
    const size_t esize = size_t(bp_vocab_dtype_size(view.dtype));
    Bytes &storage = step.data.storages[size_t(view.storage)];
    for_each_index(view, [&](const int64_t *idx, int64_t pos) {
      std::memcpy(storage.data() + byte_at(view, idx), values[size_t(v)].data() + size_t(pos) * esize, esize);
    });
    step.inputs.push_back(view);
    alone.args[a] = a;
  }
  step.instrs.push_back(alone);
  step.outputs.push_back(add_view(step.data, in.out_dtype, shape, dense(), true));
  empty_view_strides(step.outputs[0]);
  step.output_values.push_back(int32_t(step.inputs.size()));
  return step;
}

}  // namespace bpcheck
