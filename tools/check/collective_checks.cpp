// L3 collectives: a plugin's collective entry, and its group entries when it
// has them, against values the kit computes on the host from plugin.h's
// semantics (bp_collective_args). Every dtype the plugin holds, every
// collective and reduction, one participant on each device and two across
// the first two devices in both orders, in place where a collective allows
// it; guard bytes around every view. BP_ERR_UNSUPPORTED is the plugin
// declining a case (the core then stages it): reported as a note, and it
// must come before anything is written. Malformed calls are refused with a
// message and write nothing. A plugin without the entry skips the group.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <type_traits>

#include "groups.hpp"
#include "rules.hpp"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

using Shape = std::vector<int64_t>;
using Bytes = std::vector<uint8_t>;

std::vector<int32_t> vocab_collectives() {
  std::vector<int32_t> out;
#define BPCHECK_COLLECTIVE_(id, value, name) out.push_back(value);
  BP_COLLECTIVE_LIST(BPCHECK_COLLECTIVE_)
#undef BPCHECK_COLLECTIVE_
  return out;
}

std::vector<int32_t> vocab_reduce_ops() {
  std::vector<int32_t> out;
#define BPCHECK_REDUCE_(id, value, name, dtypes) out.push_back(value);
  BP_REDUCE_OP_LIST(BPCHECK_REDUCE_)
#undef BPCHECK_REDUCE_
  return out;
}

bool reduces(int32_t collective) {
  return collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_REDUCE_SCATTER;
}

// Calls f(T{}) with the host type of `dtype` (by its kind and size; bool
// as a byte, whose MAX and MIN of 0 and 1 are or and and); false for a
// dtype the kit has no host type for.
template <class F>
bool with_host_type(int32_t dtype, F &&f) {
  const int32_t size = bp_vocab_dtype_size(dtype);
  const int32_t kind = bp_vocab_dtype_kind(dtype);
  if (kind == BP_DTYPE_KIND_FLOAT && size == 4) return f(float{}), true;
  if (kind == BP_DTYPE_KIND_FLOAT && size == 8) return f(double{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 1) return f(int8_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 2) return f(int16_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 4) return f(int32_t{}), true;
  if (kind == BP_DTYPE_KIND_SIGNED_INT && size == 8) return f(int64_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 1) return f(uint8_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 2) return f(uint16_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 4) return f(uint32_t{}), true;
  if (kind == BP_DTYPE_KIND_UNSIGNED_INT && size == 8) return f(uint64_t{}), true;
  if (kind == BP_DTYPE_KIND_BOOL && size == 1) return f(uint8_t{}), true;
  return false;
}

// float16 and bfloat16: no host type; their values go through half.h
// (store, load_double) and reduce in float32 or wider, rounded once.
bool is_half(int32_t dtype) { return dtype == BP_FLOAT16 || dtype == BP_BFLOAT16; }

// Whether the kit can compute a collective's results in `dtype`.
bool computable(int32_t dtype) { return is_half(dtype) || with_host_type(dtype, [](auto) {}); }

template <class T>
T get(const Bytes &b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + size_t(i) * sizeof(T), sizeof v);
  return v;
}
template <class T>
void put(Bytes &b, int64_t i, T v) {
  std::memcpy(b.data() + size_t(i) * sizeof(T), &v, sizeof v);
}

// plugin.h: SUM adds (integers wrap as ADD does), MAX and MIN elementwise
// (on bool: or, and), MEAN the sum divided by n (integers truncated toward
// zero, as C divides).
template <class T>
T combine(int32_t reduce_op, T a, T b) {
  if (reduce_op == BP_REDUCE_MAX) return b > a ? b : a;
  if (reduce_op == BP_REDUCE_MIN) return b < a ? b : a;
  if constexpr (std::is_floating_point<T>::value) {
    return a + b;
  } else {
    using U = typename std::make_unsigned<T>::type;
    return T(U(U(a) + U(b)));
  }
}
template <class T>
T finish(int32_t reduce_op, T acc, int32_t n) {
  return reduce_op == BP_REDUCE_MEAN ? T(acc / T(n)) : acc;
}

// One case: what runs, on which devices, with which views.
struct Coll {
  int32_t collective = BP_COLLECTIVE_ALL_REDUCE;
  int32_t reduce_op = 0;
  int32_t root = 0;
  int32_t dtype = BP_FLOAT32;
  std::vector<int32_t> devices;
  bool in_place = false;
  Shape share = {3, 5};  // S
  uint64_t group = 0;    // a group of one rank (devices has one entry), or 0

  int32_t n() const { return int32_t(devices.size()); }
  Shape in_shape() const {
    Shape s = share;
    if (collective == BP_COLLECTIVE_REDUCE_SCATTER) s.insert(s.begin(), n());
    return s;
  }
  Shape out_shape() const {
    Shape s = share;
    if (collective == BP_COLLECTIVE_ALL_GATHER) s.insert(s.begin(), n());
    return s;
  }
  std::string name(const Plugin &p) const {
    std::string s = bp_vocab_collective_name(collective);
    if (reduces(collective)) s += std::string(" ") + bp_vocab_reduce_op_name(reduce_op);
    if (collective == BP_COLLECTIVE_BROADCAST) s += format(" from participant %d", int(root));
    s += std::string(" ") + dtype_name(dtype) + " S " + shape_text(int32_t(share.size()), share.data()) + " on ";
    for (size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + p.device_name(devices[i]);
    if (group) s += format(" in group %llu (one rank)", (unsigned long long)group);
    return s + (in_place ? ", in place" : "");
  }
};

int64_t elements(const Shape &s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

// Participant j's input: floats in [-4, 4]; integers in [-100, 100] with
// the extremes first (SUM wraps; MEAN of negative sums truncates toward
// zero); bools 0 or 1.
Bytes input_values(const Coll &c, int32_t j) {
  std::mt19937_64 rng(uint64_t(31 * c.collective + 7 * c.reduce_op + 1000 * c.dtype + j + 1));
  const int64_t count = elements(c.in_shape());
  Bytes b(size_t(count * bp_vocab_dtype_size(c.dtype)));
  const bool is_bool_dtype = is_bool(c.dtype);
  if (is_half(c.dtype))
    for (int64_t e = 0; e < count; ++e)
      store(c.dtype, b.data() + e * 2, Val{std::uniform_real_distribution<double>(-4, 4)(rng), 0});
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < count; ++e) {
      T v;
      if constexpr (std::is_floating_point<T>::value) {
        v = T(std::uniform_real_distribution<double>(-4, 4)(rng));
      } else {
        if (is_bool_dtype)
          v = T(rng() & 1);
        else if (e == 0)
          v = T(std::numeric_limits<T>::max() - T(j));
        else if (e == 1 && std::is_signed<T>::value)
          v = T(std::numeric_limits<T>::min() + T(j));
        else
          v = T(std::uniform_int_distribution<int64_t>(std::is_signed<T>::value ? -100 : 0, 100)(rng));
      }
      put(b, e, v);
    }
  });
  return b;
}

// Output i's expected values, and per element the tolerance of a float sum
// or mean (n + 1 roundings of the sum of the terms' magnitudes; 0: exact).
struct Expected {
  Bytes values;
  std::vector<double> tolerance;
};

// A float16 or bfloat16 output: moved elements keep their bits; MAX and MIN
// pick one (exact); SUM and MEAN are the float32 sum rounded once, so within
// one ulp of the half (eps |result|, plus the smallest subnormal) and the
// float32 sum's n + 1 roundings of the sum of magnitudes.
void expected_half(const Coll &c, const std::vector<Bytes> &inputs, int32_t i, Expected &x) {
  const int32_t n = c.n();
  const int64_t share = elements(c.share), count = elements(c.out_shape());
  const double eps = c.dtype == BP_FLOAT16 ? 0x1p-10 : 0x1p-7, tiny = c.dtype == BP_FLOAT16 ? 0x1p-24 : 0x1p-133;
  for (int64_t e = 0; e < count; ++e) {
    uint8_t *out = x.values.data() + e * 2;
    if (c.collective == BP_COLLECTIVE_BROADCAST) {
      std::memcpy(out, inputs[size_t(c.root)].data() + e * 2, 2);
    } else if (c.collective == BP_COLLECTIVE_ALL_GATHER) {
      std::memcpy(out, inputs[size_t(e / share)].data() + (e % share) * 2, 2);
    } else {
      const int64_t at = c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? i * share + e : e;
      double acc = load_double(c.dtype, inputs[0].data() + at * 2), magnitude = std::fabs(acc);
      for (int32_t j = 1; j < n; ++j) {
        const double v = load_double(c.dtype, inputs[size_t(j)].data() + at * 2);
        acc = combine(c.reduce_op, acc, v);
        magnitude += std::fabs(v);
      }
      if (c.reduce_op == BP_REDUCE_MEAN) {
        acc /= n;
        magnitude /= n;
      }
      store(c.dtype, out, Val{acc, 0});
      if (c.reduce_op == BP_REDUCE_SUM || c.reduce_op == BP_REDUCE_MEAN)
        x.tolerance[size_t(e)] = eps * std::fabs(acc) + tiny + (n + 1) * double(FLT_EPSILON) * magnitude;
    }
  }
}

Expected expected_output(const Coll &c, const std::vector<Bytes> &inputs, int32_t i) {
  const int32_t n = c.n();
  const int64_t share = elements(c.share), count = elements(c.out_shape());
  Expected x{Bytes(size_t(count * bp_vocab_dtype_size(c.dtype))), std::vector<double>(size_t(count), 0.0)};
  if (is_half(c.dtype)) expected_half(c, inputs, i, x);
  with_host_type(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t e = 0; e < count; ++e) {
      if (c.collective == BP_COLLECTIVE_BROADCAST) {
        put(x.values, e, get<T>(inputs[size_t(c.root)], e));
      } else if (c.collective == BP_COLLECTIVE_ALL_GATHER) {
        put(x.values, e, get<T>(inputs[size_t(e / share)], e % share));
      } else {
        const int64_t at = c.collective == BP_COLLECTIVE_REDUCE_SCATTER ? i * share + e : e;
        T acc = get<T>(inputs[0], at);
        double magnitude = std::fabs(double(acc));
        for (int32_t j = 1; j < n; ++j) {
          const T v = get<T>(inputs[size_t(j)], at);
          acc = combine(c.reduce_op, acc, v);
          magnitude += std::fabs(double(v));
        }
        put(x.values, e, finish(c.reduce_op, acc, n));
        if (std::is_floating_point<T>::value && (c.reduce_op == BP_REDUCE_SUM || c.reduce_op == BP_REDUCE_MEAN))
          x.tolerance[size_t(e)] = (n + 1) * double(std::numeric_limits<T>::epsilon()) * magnitude /
                                   (c.reduce_op == BP_REDUCE_MEAN ? n : 1);
      }
    }
  });
  return x;
}

// "" when `got` holds what is expected, else the first element that differs.
std::string compare(const Coll &c, const Bytes &got, const Expected &want) {
  const int32_t size = bp_vocab_dtype_size(c.dtype);
  const Shape shape = c.out_shape();
  int64_t wrong = 0;
  std::string first;
  for (int64_t e = 0; e < int64_t(want.tolerance.size()); ++e) {
    const uint8_t *g = got.data() + e * size, *w = want.values.data() + e * size;
    const bool ok = want.tolerance[size_t(e)] > 0
                        ? std::fabs(load_double(c.dtype, g) - load_double(c.dtype, w)) <= want.tolerance[size_t(e)]
                        : std::memcmp(g, w, size_t(size)) == 0;
    if (ok || wrong++) continue;
    Shape idx(shape.size());
    for (int64_t d = int64_t(shape.size()) - 1, rest = e; d >= 0; --d) {
      idx[size_t(d)] = rest % shape[size_t(d)];
      rest /= shape[size_t(d)];
    }
    first = "at " + shape_text(int32_t(idx.size()), idx.data()) + " it gives " + value_text(c.dtype, g) + " where " +
            value_text(c.dtype, w) + " was expected";
  }
  return wrong ? first + format(" (%lld of %lld elements differ)", (long long)wrong, (long long)want.tolerance.size())
               : "";
}

// A plugin buffer holding one view with kGuardBytes of guard on each side,
// freed with the owner.
struct GuardedBuffer {
  Plugin *plugin = nullptr;
  bp_buffer buffer = nullptr;
  Bytes contents;  // everything written into it
  GuardedBuffer() = default;
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  ~GuardedBuffer() {
    if (buffer) plugin->free(buffer);
  }
  // "" or what failed.
  std::string make(Plugin &p, int32_t device, const Bytes &values, size_t bytes, uint8_t guard) {
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
  bp_plugin_tensor view(int32_t dtype, const Shape &shape) const {
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
  // The whole buffer as it is now, or "" with *problem set.
  Bytes now(std::string *problem) const {
    Bytes b(contents.size());
    const bp_status s = plugin->read(buffer, 0, b.data(), b.size());
    if (s != BP_OK) *problem = "read failed: " + plugin->describe(s);
    return b;
  }
};

enum class Verdict { passed, declined, failed };

// Runs one case; *problem says why it failed.
Verdict run_case(Plugin &p, const Coll &c, std::string *problem) {
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

// Every collective, reduction, root and in-place variant of one dtype on
// one device list, with S = `share`.
std::vector<Coll> cases_for(int32_t dtype, const std::vector<int32_t> &devices, const Shape &share) {
  std::vector<Coll> out;
  for (int32_t collective : vocab_collectives()) {
    std::vector<int32_t> ops = {0};
    if (reduces(collective)) {
      ops.clear();
      for (int32_t op : vocab_reduce_ops())
        if (bp_vocab_dtype_in_set(dtype, bp_vocab_reduce_op_dtypes(op))) ops.push_back(op);
    }
    std::vector<int32_t> roots = {0};
    if (collective == BP_COLLECTIVE_BROADCAST && devices.size() > 1) roots.push_back(int32_t(devices.size()) - 1);
    const bool may_be_in_place = collective == BP_COLLECTIVE_ALL_REDUCE || collective == BP_COLLECTIVE_BROADCAST;
    for (int32_t op : ops)
      for (int32_t root : roots)
        for (bool in_place : {false, true}) {
          if (in_place && !may_be_in_place) continue;
          Coll c;
          c.collective = collective;
          c.reduce_op = op;
          c.root = root;
          c.dtype = dtype;
          c.devices = devices;
          c.in_place = in_place;
          c.share = share;
          out.push_back(c);
        }
  }
  return out;
}

// The dtypes a plugin holds: those it declares any operator for on every
// device checked; every dtype when it declares none at all.
std::vector<int32_t> held_dtypes(Plugin &p, const std::vector<int32_t> &devices) {
  std::vector<int32_t> out;
  bool any = false;
  for (int32_t dtype : vocab_dtypes()) {
    bool everywhere = true;
    for (int32_t d : devices) {
      bool here = false;
      for (int32_t op : vocab_ops())
        for (int32_t o : vocab_dtypes())
          if (!here && p.declares(d, op, dtype, o)) here = true;
      everywhere = everywhere && here;
      any = any || here;
    }
    if (everywhere && computable(dtype)) out.push_back(dtype);
  }
  // A plugin of an older ABI minor never receives a dtype it predates (the
  // core converts around it).
  if (!any)
    for (int32_t dtype : vocab_dtypes())
      if (computable(dtype) && (rule_applies(Rule::dtypes_1_4, p.api().abi_minor) || dtype <= BP_BOOL)) out.push_back(dtype);
  return out;
}

// Runs the cases, one check each; declined ones are counted per collective
// and reported in one note each.
class Runner {
 public:
  Runner(Recorder &rec, Plugin &p) : rec_(rec), p_(p) {}
  void run(const Coll &c) {
    const std::string name = c.name(p_);
    rec_.begin(name);
    std::string problem;
    Declined &d = declined_[bp_vocab_collective_name(c.collective)];
    ++d.cases;
    switch (run_case(p_, c, &problem)) {
      case Verdict::passed:
        rec_.pass(name);
        ++passed_;
        break;
      case Verdict::failed: rec_.fail(name + ": " + problem); break;
      case Verdict::declined:
        if (!d.count++) d.example = name;
        break;
    }
  }
  int passed() const { return passed_; }
  void report() {
    for (const auto &kv : declined_)
      if (kv.second.count)
        rec_.note(format("%s: declined %d of %d cases (BP_ERR_UNSUPPORTED: not implemented for them; the core stages "
                         "them through host memory), e.g. ",
                         kv.first.c_str(), kv.second.count, kv.second.cases) +
                  kv.second.example);
  }

 private:
  struct Declined {
    int count = 0, cases = 0;
    std::string example;
  };
  Recorder &rec_;
  Plugin &p_;
  int passed_ = 0;
  std::map<std::string, Declined> declined_;
};

// A malformed call: an ALL_REDUCE SUM of float32 [4] on `devices`, broken by
// `mutate`, must fail with a message and write nothing.
template <class Mutate>
void refused(Recorder &rec, Plugin &p, const std::vector<int32_t> &devices, const std::string &what, Mutate &&mutate) {
  const std::string label = "collective with " + what;
  rec.begin(label);
  const Bytes ones = [] {
    Bytes b(16);
    for (int i = 0; i < 4; ++i) {
      const float one = 1.0f;
      std::memcpy(b.data() + 4 * i, &one, 4);
    }
    return b;
  }();
  std::vector<GuardedBuffer> in(devices.size()), out(devices.size());
  std::vector<bp_plugin_tensor> in_views, out_views;
  std::vector<int32_t> ids = devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string problem = in[i].make(p, devices[i], ones, 16, kInputPattern);
    if (problem.empty()) problem = out[i].make(p, devices[i], {}, 16, kOutputPattern);
    if (!problem.empty()) {
      rec.fail(label + ": " + problem);
      return;
    }
    in_views.push_back(in[i].view(BP_FLOAT32, {4}));
    out_views.push_back(out[i].view(BP_FLOAT32, {4}));
  }
  bp_collective_args args{};
  args.struct_size = sizeof args;
  args.collective = BP_COLLECTIVE_ALL_REDUCE;
  args.reduce_op = BP_REDUCE_SUM;
  args.count = int32_t(ids.size());
  args.devices = ids.data();
  args.inputs = in_views.data();
  args.outputs = out_views.data();
  const bp_collective_args *given = mutate(args, ids, in_views, out_views);
  const bp_status s = p.collective(given);
  const std::string message = s == BP_OK ? "" : p.last_error();
  bool untouched = true;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string problem;
    untouched = untouched && out[i].now(&problem) == out[i].contents && problem.empty();
  }
  if (s == BP_OK)
    rec.fail(label + " returned BP_OK; a malformed call is an error with a message");
  else if (message.empty())
    rec.fail(label + " returned " + status_name(s) + " without a message (last_error is empty)");
  else if (!untouched)
    rec.fail(label + " returned " + status_name(s) + " but wrote into an output");
  else
    rec.pass(label + " is refused (" + status_name(s) + ")");
}

using Args = bp_collective_args;
using Views = std::vector<bp_plugin_tensor>;
using Ids = std::vector<int32_t>;

void check_malformed(Recorder &rec, Plugin &p, const std::vector<int32_t> &devices) {
  const Ids one = {devices[0]};
  refused(rec, p, one, "NULL args", [](Args &, Ids &, Views &, Views &) -> const Args * { return nullptr; });
  refused(rec, p, one, "count 0", [](Args &a, Ids &, Views &, Views &) {
    a.count = 0;
    return &a;
  });
  refused(rec, p, one, "a struct_size older than 1.2", [](Args &a, Ids &, Views &, Views &) {
    a.struct_size = uint32_t(offsetof(bp_collective_args, group));
    return &a;
  });
  refused(rec, p, one, "NULL devices", [](Args &a, Ids &, Views &, Views &) {
    a.devices = nullptr;
    return &a;
  });
  refused(rec, p, one, "NULL inputs", [](Args &a, Ids &, Views &, Views &) {
    a.inputs = nullptr;
    return &a;
  });
  refused(rec, p, one, "NULL outputs", [](Args &a, Ids &, Views &, Views &) {
    a.outputs = nullptr;
    return &a;
  });
  refused(rec, p, one, "the unknown collective 99", [](Args &a, Ids &, Views &, Views &) {
    a.collective = 99;
    return &a;
  });
  refused(rec, p, one, "the unknown reduce_op 99", [](Args &a, Ids &, Views &, Views &) {
    a.reduce_op = 99;
    return &a;
  });
  refused(rec, p, one, "a device index it does not have", [&](Args &a, Ids &ids, Views &, Views &) {
    ids[0] = p.device_count() + 7;
    return &a;
  });
  refused(rec, p, one, "a broadcast root that is no participant", [](Args &a, Ids &, Views &, Views &) {
    a.collective = BP_COLLECTIVE_BROADCAST;
    a.root = 1;
    return &a;
  });
  refused(rec, p, one, "a non-contiguous input", [](Args &a, Ids &, Views &in, Views &) {
    in[0].shape[0] = 2;
    in[0].strides[0] = 2;
    return &a;
  });
  refused(rec, p, one, "an output of another shape", [](Args &a, Ids &, Views &, Views &out) {
    out[0].shape[0] = 3;
    return &a;
  });
  refused(rec, p, one, "an output of another dtype", [](Args &a, Ids &, Views &, Views &out) {
    out[0].dtype = BP_INT32;
    return &a;
  });
  refused(rec, p, one, "an input reaching past its buffer", [](Args &a, Ids &, Views &in, Views &) {
    in[0].shape[0] = 40;
    return &a;
  });
  refused(rec, p, one, "a NULL input buffer", [](Args &a, Ids &, Views &in, Views &) {
    in[0].buffer = nullptr;
    return &a;
  });
  refused(rec, p, one, "an output half over its input", [](Args &a, Ids &, Views &in, Views &out) {
    in[0].shape[0] = 2;
    out[0] = in[0];
    out[0].offset += 4;
    return &a;
  });
  if (devices.size() < 2) return;
  const Ids two = {devices[0], devices[1]};
  refused(rec, p, two, "one device twice", [](Args &a, Ids &ids, Views &, Views &) {
    ids[1] = ids[0];
    return &a;
  });
  refused(rec, p, two, "inputs of two shapes", [](Args &a, Ids &, Views &in, Views &out) {
    in[1].shape[0] = out[1].shape[0] = 3;
    return &a;
  });
  refused(rec, p, two, "an input on another participant's device", [](Args &a, Ids &, Views &in, Views &) {
    in[1].buffer = in[0].buffer;
    return &a;
  });
}

// group_id and group_join of a group of one rank, every collective in it on
// device d, group_leave; the three entries come together (plugin.h).
void check_groups(Recorder &rec, Plugin &p, int32_t d, const std::vector<int32_t> &dtypes, Runner &runner) {
  const bool id = p.entry(&bp_plugin_api::group_id), join = p.entry(&bp_plugin_api::group_join),
             leave = p.entry(&bp_plugin_api::group_leave);
  if (!id && !join && !leave) {
    rec.note("no group entries (optional): the core stages collectives across processes through its own transport");
    return;
  }
  if (!id || !join || !leave) {
    rec.fail(format("group_id, group_join and group_leave are optional together, but only %s%s%s is set",
                    id ? "group_id " : "", join ? "group_join " : "", leave ? "group_leave " : ""));
    return;
  }
  const std::string dn = p.device_name(d);
  rec.begin(dn + ": group_id and group_join of a group of one rank");
  Bytes bootstrap(4096);
  uint32_t size = 0;
  bp_status s = p.group_id(d, bootstrap.data(), uint32_t(bootstrap.size()), &size);
  if (s != BP_OK || size == 0 || size > bootstrap.size()) {
    rec.fail(dn + ": group_id " + (s != BP_OK ? "failed: " + p.describe(s) : format("wrote a size of %u", size)));
    return;
  }
  uint64_t group = 0;
  s = p.group_join(d, bootstrap.data(), size, 0, 1, &group);
  if (s != BP_OK || group == 0) {
    rec.fail(dn + ": group_join of rank 0 of 1 " + (s != BP_OK ? "failed: " + p.describe(s) : "gave group 0"));
    return;
  }
  rec.pass(dn + format(": a group of one rank (group_id wrote %u bytes, group_join gave group %llu)", size,
                       (unsigned long long)group));
  for (int32_t dtype : dtypes)
    for (Coll c : cases_for(dtype, {d}, {3, 5})) {
      c.group = group;
      runner.run(c);
    }
  rec.begin(dn + ": group_leave");
  s = p.group_leave(group);
  if (s != BP_OK) {
    rec.fail(dn + ": group_leave failed: " + p.describe(s));
    return;
  }
  rec.expect(p.group_leave(group) != BP_OK, dn + ": group_leave ends the group (leaving it again is an error)",
             dn + ": group_leave of a group already left returned BP_OK");
}

}  // namespace

void group_collectives(Context &ctx, Plugin &p) {
  Recorder &rec = ctx.rec;
  if (!p.entry(&bp_plugin_api::collective)) {
    const bool groups = p.entry(&bp_plugin_api::group_id) || p.entry(&bp_plugin_api::group_join) ||
                        p.entry(&bp_plugin_api::group_leave);
    if (groups) rec.fail("group entries without a collective entry: groups are only used through collective");
    rec.skip("no collective entry (optional, not declared): the core stages collectives through host memory");
    return;
  }
  const std::vector<int32_t> devices = ctx.devices(p, true);
  if (devices.empty()) return;
  const std::vector<int32_t> dtypes = held_dtypes(p, devices);
  Runner runner(rec, p);
  std::vector<std::vector<int32_t>> sets;
  for (int32_t d : devices) sets.push_back({d});
  if (devices.size() >= 2) {
    sets.push_back({devices[0], devices[1]});
    sets.push_back({devices[1], devices[0]});
  } else {
    rec.note("one device: collectives with one participant only");
  }
  for (const std::vector<int32_t> &set : sets)
    for (int32_t dtype : dtypes)
      for (const Coll &c : cases_for(dtype, set, {3, 5})) runner.run(c);
  // Shapes beyond the small one, on the largest device list: a scalar, an
  // empty S, and one large enough to be split over work-items or blocks.
  for (const Shape &share : {Shape{}, Shape{0, 4}, Shape{257, 129}})
    for (const Coll &c : cases_for(dtypes.empty() ? BP_FLOAT32 : dtypes.front(), sets.back(), share)) runner.run(c);
  check_groups(rec, p, devices[0], dtypes, runner);
  runner.report();
  check_malformed(rec, p, devices);
  if (runner.passed() == 0)
    rec.skip("the collective entry declined every case (BP_ERR_UNSUPPORTED: the core stages them all)");
}

}  // namespace bpcheck
