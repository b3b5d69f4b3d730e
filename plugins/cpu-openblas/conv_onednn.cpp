#include "conv_onednn.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "backend.hpp"
#include "oneapi/dnnl/dnnl.hpp"
#include "parallel.hpp"

namespace cpu_backend {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Type = memory::data_type;

const dnnl::engine &engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

Tag plain_tag(int rank) { return rank == 1 ? Tag::ncw : rank == 2 ? Tag::nchw : Tag::ncdhw; }
Tag weights_tag(int rank, bool grouped) {
  if (grouped) return rank == 1 ? Tag::goiw : rank == 2 ? Tag::goihw : Tag::goidhw;
  return rank == 1 ? Tag::oiw : rank == 2 ? Tag::oihw : Tag::oidhw;
}

memory::dims activation_dims(int64_t n, int64_t channels, const int64_t *spatial, int rank) {
  memory::dims d{n, channels};
  d.insert(d.end(), spatial, spatial + rank);
  return d;
}

// [C_out, C_in / G, K...] as oneDNN's [G, C_out / G, C_in / G, K...] when grouped.
memory::dims weight_dims(const bp_sdk_conv &g) {
  memory::dims d;
  if (g.groups > 1) d.push_back(g.groups);
  d.push_back(g.c_out / g.groups);
  d.push_back(g.c_in / g.groups);
  d.insert(d.end(), g.kernel, g.kernel + g.rank);
  return d;
}

// What one problem (one batch slice size) needs: the primitive, and the
// reorders between the plain layouts of the operands and its own.
struct Plan {
  dnnl::primitive primitive;
  memory::desc a_user, b_user, out_user, a_own, b_own, out_own;
  dnnl::reorder a_in, b_in, out_back;
  bool reorder_a = false, reorder_b = false, reorder_out = false;
  size_t scratchpad = 0;
  std::string implementation;
};

// oneDNN checks (S + pb + pe - d (K - 1) - 1) / s + 1 == O, where plugin.h
// allows a remainder up to max(s, d) - 1 (a ConvTranspose's output
// padding): the window never reads there, so pe gives up whole strides.
// Empty when that would make it negative.
bool onednn_pad_end(const bp_sdk_conv &g, memory::dims &pad_end) {
  pad_end.clear();
  for (int i = 0; i < g.rank; ++i) {
    const int64_t reach =
        g.in[i] + g.pad_begin[i] + g.pad_end[i] - g.dilation[i] * (g.kernel[i] - 1) - 1 - (g.out[i] - 1) * g.stride[i];
    const int64_t pe = g.pad_end[i] - reach / g.stride[i] * g.stride[i];
    if (pe < 0) return false;
    pad_end.push_back(pe);
  }
  return true;
}

// C-order strides of an activation [N, C, spatial...] whose batch items
// hold `channels` channels, of which dims[1] are the problem's.
memory::dims strides_within(const memory::dims &dims, int64_t channels) {
  memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * (i == 1 ? channels : dims[i]);
  return strides;
}

dnnl::reorder reorder_of(const memory::desc &from, const memory::desc &to) {
  return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
}

// y_channels: the channels of the tensor y (or dy) is a slice of, when the
// problem is some of its channels (g.c_out of them): y's user layout is
// then strided, a batch item y_channels channels apart.
Plan make_plan(int32_t op, const bp_sdk_conv &g, int64_t n, ConvData data, bool bias, const memory::dims &pad_end,
               int64_t y_channels) {
  const Type t = data == ConvData::f32 ? Type::f32 : Type::bf16;
  const int r = g.rank;
  const memory::dims x_dims = activation_dims(n, g.c_in, g.in, r), y_dims = activation_dims(n, g.c_out, g.out, r);
  const memory::dims w_dims = weight_dims(g);
  const memory::desc x_any(x_dims, t, Tag::any), y_any(y_dims, t, Tag::any), w_any(w_dims, t, Tag::any);
  const memory::desc bias_md({g.c_out}, Type::f32, Tag::x);
  memory::dims strides(g.stride, g.stride + r), dilates, pad_begin(g.pad_begin, g.pad_begin + r);
  for (int i = 0; i < r; ++i) dilates.push_back(g.dilation[i] - 1);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const bool fused_bias = op == BP_OP_CONV && bias;
  const auto forward = fused_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                                    dnnl::algorithm::convolution_direct, x_any, w_any,
                                                                    bias_md, y_any, strides, dilates, pad_begin, pad_end)
                                  : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                                                    dnnl::algorithm::convolution_direct, x_any, w_any,
                                                                    y_any, strides, dilates, pad_begin, pad_end);
  const dnnl::convolution_forward::primitive_desc forward_pd(forward, attr, engine());
  Plan p;
  const memory::desc x_user(x_dims, t, plain_tag(r));
  const memory::desc y_user = y_channels == g.c_out ? memory::desc(y_dims, t, plain_tag(r))
                                                    : memory::desc(y_dims, t, strides_within(y_dims, y_channels));
  const memory::desc w_user(w_dims, t, weights_tag(r, g.groups > 1));
  if (op == BP_OP_CONV) {
    p.primitive = dnnl::convolution_forward(forward_pd);
    p.a_user = x_user, p.b_user = w_user, p.out_user = y_user;
    p.a_own = forward_pd.src_desc(), p.b_own = forward_pd.weights_desc(), p.out_own = forward_pd.dst_desc();
    p.scratchpad = forward_pd.scratchpad_desc().get_size();
    p.implementation = forward_pd.impl_info_str();
  } else if (op == BP_OP_CONV_TRANSPOSE) {
    const dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, x_any, w_any, y_any, strides,
                                              dilates, pad_begin, pad_end),
        attr, engine(), forward_pd);
    p.primitive = dnnl::convolution_backward_data(pd);
    p.a_user = y_user, p.b_user = w_user, p.out_user = x_user;
    p.a_own = pd.diff_dst_desc(), p.b_own = pd.weights_desc(), p.out_own = pd.diff_src_desc();
    p.scratchpad = pd.scratchpad_desc().get_size();
    p.implementation = pd.impl_info_str();
  } else {
    const memory::desc dw_any(w_dims, Type::f32, Tag::any);
    const dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, x_any, dw_any, y_any, strides,
                                                 dilates, pad_begin, pad_end),
        attr, engine(), forward_pd);
    p.primitive = dnnl::convolution_backward_weights(pd);
    p.a_user = x_user, p.b_user = y_user, p.out_user = memory::desc(w_dims, Type::f32, weights_tag(r, g.groups > 1));
    p.a_own = pd.src_desc(), p.b_own = pd.diff_dst_desc(), p.out_own = pd.diff_weights_desc();
    p.scratchpad = pd.scratchpad_desc().get_size();
    p.implementation = pd.impl_info_str();
  }
  if ((p.reorder_a = p.a_user != p.a_own)) p.a_in = reorder_of(p.a_user, p.a_own);
  if ((p.reorder_b = p.b_user != p.b_own)) p.b_in = reorder_of(p.b_user, p.b_own);
  if ((p.reorder_out = p.out_user != p.out_own)) p.out_back = reorder_of(p.out_own, p.out_user);
  return p;
}

// Plans by problem: a training loop asks for the same few shapes again and
// again, and building one costs a millisecond or more. A oneDNN 2.x
// primitive may execute on several threads at once with different memory
// (its scratchpad is ours: scratchpad_mode::user).
//
// Every plan runs on one OpenMP thread: the pool's threads are the
// parallelism (batch slices, channel splits). oneDNN fixes a primitive's
// thread count when it is built, from the building thread's OpenMP
// setting, so the plan is built at one thread (and leaves the calling
// thread there): built at OpenMP's default (every core), it opened a team
// of that many threads inside each pool thread that ran it, whose workers
// spin after the region on the cores the pool's next kernels need (and a
// "threads = 1" backend used two). Without teams MobileNetV2 at batch 1
// ran about 10% faster on two cores.
std::shared_ptr<const Plan> plan_for(int32_t op, const bp_sdk_conv &g, int64_t n, ConvData data, bool bias,
                                     const memory::dims &pad_end, int64_t y_channels = 0) {
  if (y_channels == 0) y_channels = g.c_out;
  omp_set_num_threads(1);
  std::vector<int64_t> key{op, int64_t(data), g.rank, n, g.c_in, g.c_out, g.groups, bias, y_channels};
  for (int i = 0; i < g.rank; ++i)
    key.insert(key.end(), {g.in[i], g.out[i], g.kernel[i], g.stride[i], g.dilation[i], g.pad_begin[i], pad_end[size_t(i)]});
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> cache;
  constexpr size_t kCapacity = 256;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(key);
    if (found != cache.end()) return found->second;
  }
  auto plan = std::make_shared<const Plan>(make_plan(op, g, n, data, bias, pad_end, y_channels));
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kCapacity) cache.clear();
  cache.emplace(std::move(key), plan);
  return plan;
}

void *at(const void *base, int64_t elements, size_t size) {
  return const_cast<char *>(static_cast<const char *>(base)) + size_t(elements) * size;
}

// Elements per channel of x and of y, and taps per filter: the offsets of
// a slice's operands.
struct Extents {
  int64_t in = 1, out = 1, taps = 1;
  explicit Extents(const bp_sdk_conv &g) {
    for (int i = 0; i < g.rank; ++i) in *= g.in[i], out *= g.out[i], taps *= g.kernel[i];
  }
};

// Runs plan on one slice's operands in the user's layouts, on the calling
// thread: a and out go through blocks of the plan's own layouts where they
// differ, and so does b unless b_own holds it in the plan's layout already.
// The blocks come from the pool's cache: fresh pages for a call's blocked
// layouts would cost their faults every time (a few hundred microseconds
// for a 56x56 layer). Throws on failure.
void execute(const Plan &plan, int32_t op, int64_t c_out, const void *a, const void *b, const void *b_own,
             const float *bias, void *out) {
  MemoryPool &memory_pool = g_backend.memory;
  dnnl::stream stream(engine());
  const bool reorder_b = plan.reorder_b && !b_own;
  const ScratchBlock a_block(memory_pool, plan.reorder_a ? plan.a_own.get_size() : 0);
  const ScratchBlock b_block(memory_pool, reorder_b ? plan.b_own.get_size() : 0);
  const ScratchBlock out_block(memory_pool, plan.reorder_out ? plan.out_own.get_size() : 0);
  const ScratchBlock scratch_block(memory_pool, plan.scratchpad);
  memory a_user(plan.a_user, engine(), const_cast<void *>(a));
  memory b_user(plan.b_user, engine(), const_cast<void *>(b));
  memory out_user(plan.out_user, engine(), out);
  memory a_mem = plan.reorder_a ? memory(plan.a_own, engine(), a_block.data()) : a_user;
  memory b_mem = !plan.reorder_b ? b_user
                 : reorder_b     ? memory(plan.b_own, engine(), b_block.data())
                                 : memory(plan.b_own, engine(), const_cast<void *>(b_own));
  memory out_mem = plan.reorder_out ? memory(plan.out_own, engine(), out_block.data()) : out_user;
  if (plan.reorder_a) plan.a_in.execute(stream, a_user, a_mem);
  if (reorder_b) plan.b_in.execute(stream, b_user, b_mem);
  std::unordered_map<int, memory> args;
  if (plan.scratchpad > 0)
    args.insert({DNNL_ARG_SCRATCHPAD,
                 memory(memory::desc({int64_t(plan.scratchpad)}, Type::u8, Tag::x), engine(), scratch_block.data())});
  if (op == BP_OP_CONV) {
    args.insert({{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, out_mem}});
    if (bias)
      args.insert(
          {DNNL_ARG_BIAS, memory(memory::desc({c_out}, Type::f32, Tag::x), engine(), const_cast<float *>(bias))});
  } else if (op == BP_OP_CONV_TRANSPOSE) {
    args.insert({{DNNL_ARG_DIFF_DST, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DIFF_SRC, out_mem}});
  } else {
    args.insert({{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_DIFF_DST, b_mem}, {DNNL_ARG_DIFF_WEIGHTS, out_mem}});
  }
  plan.primitive.execute(stream, args);
  if (plan.reorder_out) plan.out_back.execute(stream, out_mem, out_user);
  stream.wait();
}

// `units` (output channels or groups) in whole blocks of oneDNN's channel
// block on AVX-512, one slice per pool thread: `count` slices of `step`
// units, the last of `last`. count < 2 when there are too few blocks.
struct ChannelSplit {
  int64_t step = 0, count = 0, last = 0;
  ChannelSplit(int64_t threads, int64_t units) {
    constexpr int64_t kBlock = 16;
    const int64_t pieces = std::min<int64_t>(threads, units / kBlock);
    if (pieces < 2) return;
    step = ((units + pieces - 1) / pieces + kBlock - 1) / kBlock * kBlock;
    count = (units + step - 1) / step, last = units - (count - 1) * step;
  }
};

// A batch of one, or an ungrouped batch whose weights outweigh x, on
// several threads: the output channels (the groups, of a grouped
// convolution) split between the pool's threads in whole channel blocks,
// each thread running oneDNN alone on its share of the weights and writing
// its channels of y in place. One call on an OpenMP team instead reordered
// all the weights on one thread and left libgomp's workers spinning after
// it, on the cores the pool's next kernels needed (a third of a MobileNetV2
// run at batch 1); batch slices reorder the weights once, on one thread,
// before they start. False, with nothing done, when the problem is neither
// or there are too few channel blocks to split.
bool by_channels(ThreadPool &pool, const bp_sdk_conv &g, const Extents &e, ConvData data, const void *x,
                 const void *w, const float *bias, void *y, const memory::dims &pad_end) {
  const bool grouped = g.groups > 1;
  if (g.n > 1 && (grouped || g.c_out * g.c_in * e.taps < g.n * g.c_in * e.in)) return false;
  const ChannelSplit split(pool.threads(), grouped ? g.groups : g.c_out);
  if (split.count < 2) return false;
  const int64_t step = split.step, count = split.count, last = split.last;
  // Per unit (an output channel, or a group): its input channels (none of
  // its own without groups: every slice reads all of x), output channels
  // and weights.
  const int64_t unit_in = grouped ? g.c_in / g.groups : 0, unit_out = grouped ? g.c_out / g.groups : 1;
  const int64_t unit_weights = unit_out * (g.c_in / g.groups) * e.taps;
  auto slice = [&](int64_t units_here) {
    bp_sdk_conv s = g;
    if (grouped) s.groups = int32_t(units_here), s.c_in = unit_in * units_here;
    s.c_out = unit_out * units_here;
    return s;
  };
  const std::shared_ptr<const Plan> plans[2] = {
      plan_for(BP_OP_CONV, slice(step), g.n, data, bias != nullptr, pad_end, g.c_out),
      plan_for(BP_OP_CONV, slice(last), g.n, data, bias != nullptr, pad_end, g.c_out)};
  struct Context {
    const std::shared_ptr<const Plan> *plans;
    const void *x, *w;
    const float *bias;
    void *y;
    size_t size;
    int64_t count, step, last, unit_in, unit_out, unit_weights, in_size, out_size;
    std::atomic<bool> failed{false};
  } context{plans, x, w, bias, y, data == ConvData::f32 ? 4u : 2u, count, step, last, unit_in, unit_out, unit_weights,
            e.in, e.out};
  pool.run(
      count,
      [](void *p, int64_t i) {
        Context &c = *static_cast<Context *>(p);
        const bool tail = i + 1 == c.count;
        const int64_t u0 = i * c.step, units = tail ? c.last : c.step;
        try {
          omp_set_num_threads(1);
          execute(*c.plans[tail ? 1 : 0], BP_OP_CONV, c.unit_out * units, at(c.x, u0 * c.unit_in * c.in_size, c.size),
                  at(c.w, u0 * c.unit_weights, c.size), nullptr, c.bias ? c.bias + u0 * c.unit_out : nullptr,
                  at(c.y, u0 * c.unit_out * c.out_size, c.size));
        } catch (const std::exception &) {
          c.failed.store(true, std::memory_order_relaxed);
        }
      },
      &context);
  if (context.failed.load(std::memory_order_relaxed)) throw std::runtime_error("a channel slice failed");
  return true;
}

// CONV_WEIGHT_GRAD where dw outweighs x (deep layers on small images): the
// output channels split between the pool's threads in whole channel
// blocks, each thread running oneDNN alone over the whole batch for its
// rows of dw, reading its channels of dy in place. Splitting the batch
// instead had every thread write all of dw and the partial results added
// up after: 3x3 512 -> 512 at 7x7, batch 32, ran at 0.63x of oneDNN's own
// threading. Ungrouped problems only; false, with nothing done, otherwise
// or when there are too few channel blocks to split.
bool weight_grad_by_channels(ThreadPool &pool, const bp_sdk_conv &g, const Extents &e, ConvData data, const void *x,
                             const void *dy, void *dw, const memory::dims &pad_end) {
  if (g.groups != 1 || g.c_out * g.c_in * e.taps < g.n * g.c_in * e.in) return false;
  const ChannelSplit split(pool.threads(), g.c_out);
  if (split.count < 2) return false;
  auto slice = [&](int64_t channels) {
    bp_sdk_conv s = g;
    s.c_out = channels;
    return s;
  };
  const std::shared_ptr<const Plan> plans[2] = {
      plan_for(BP_OP_CONV_WEIGHT_GRAD, slice(split.step), g.n, data, false, pad_end, g.c_out),
      plan_for(BP_OP_CONV_WEIGHT_GRAD, slice(split.last), g.n, data, false, pad_end, g.c_out)};
  struct Context {
    const std::shared_ptr<const Plan> *plans;
    const void *x, *dy;
    void *dw;
    size_t size;
    int64_t count, step, last, channel_weights, out_size;
    std::atomic<bool> failed{false};
  } context{plans, x, dy, dw, data == ConvData::f32 ? 4u : 2u, split.count, split.step, split.last,
            g.c_in * e.taps, e.out};
  pool.run(
      split.count,
      [](void *p, int64_t i) {
        Context &c = *static_cast<Context *>(p);
        const bool tail = i + 1 == c.count;
        const int64_t c0 = i * c.step;
        try {
          omp_set_num_threads(1);
          // dw is float32 whatever the operands' type.
          execute(*c.plans[tail ? 1 : 0], BP_OP_CONV_WEIGHT_GRAD, tail ? c.last : c.step, c.x,
                  at(c.dy, c0 * c.out_size, c.size), nullptr, nullptr, at(c.dw, c0 * c.channel_weights, sizeof(float)));
        } catch (const std::exception &) {
          c.failed.store(true, std::memory_order_relaxed);
        }
      },
      &context);
  if (context.failed.load(std::memory_order_relaxed)) throw std::runtime_error("a channel slice failed");
  return true;
}

}  // namespace

bool onednn_conv(ThreadPool &pool, int32_t op, const bp_sdk_conv &g, ConvData data, const void *a, const void *b,
                 const float *bias, void *out) {
  memory::dims pad_end;
  if (g.n < 1 || !onednn_pad_end(g, pad_end)) return false;
  const size_t size = data == ConvData::f32 ? 4 : 2;
  const int64_t threads = pool.threads();
  const int64_t slices = std::min<int64_t>(threads, g.n), base = g.n / slices, extra = g.n % slices;
  const Extents extents(g);
  const int64_t in_size = extents.in, out_size = extents.out;
  const int64_t weights = g.c_out * (g.c_in / g.groups) * extents.taps;
  try {
    if (op == BP_OP_CONV && threads > 1 && by_channels(pool, g, extents, data, a, b, bias, out, pad_end))
      return true;
    if (op == BP_OP_CONV_WEIGHT_GRAD && threads > 1 && weight_grad_by_channels(pool, g, extents, data, a, b, out, pad_end))
      return true;
    // At most two slice sizes, base + 1 for the first `extra` slices, one
    // per pool thread (with fewer batch items than threads, some idle).
    const std::shared_ptr<const Plan> plans[2] = {
        plan_for(op, g, base + 1, data, bias != nullptr, pad_end),
        base > 0 ? plan_for(op, g, base, data, bias != nullptr, pad_end) : nullptr};
    // The weights of CONV and CONV_TRANSPOSE are shared by every slice:
    // reordered once per plan.
    MemoryPool &memory_pool = g_backend.memory;
    std::unique_ptr<ScratchBlock> own_weights[2];
    dnnl::stream stream(engine());
    for (int k = 0; k < 2 && op != BP_OP_CONV_WEIGHT_GRAD; ++k)
      if (plans[k] && plans[k]->reorder_b && !(k == 1 && plans[0]->b_own == plans[1]->b_own)) {
        own_weights[k] = std::make_unique<ScratchBlock>(memory_pool, plans[k]->b_own.get_size());
        memory from(plans[k]->b_user, engine(), const_cast<void *>(b)),
            to(plans[k]->b_own, engine(), own_weights[k]->data());
        plans[k]->b_in.execute(stream, from, to);
      }
    stream.wait();
    // CONV_WEIGHT_GRAD: each slice's share of dw, added up at the end.
    std::vector<std::unique_ptr<ScratchBlock>> partial(static_cast<size_t>(slices));
    for (int64_t i = 1; i < slices && op == BP_OP_CONV_WEIGHT_GRAD; ++i)
      partial[size_t(i)] = std::make_unique<ScratchBlock>(memory_pool, uint64_t(weights) * sizeof(float));
    struct Context {
      int32_t op;
      const bp_sdk_conv *g;
      const std::shared_ptr<const Plan> *plans;
      std::unique_ptr<ScratchBlock> *own_weights;
      std::vector<std::unique_ptr<ScratchBlock>> *partial;
      const void *a, *b;
      const float *bias;
      void *out;
      size_t size;
      int64_t base, extra, in_size, out_size;
      std::atomic<bool> failed{false};
    } context{op, &g, plans, own_weights, &partial, a, b, bias, out, size, base, extra, in_size, out_size};
    pool.run(
        slices,
        [](void *p, int64_t i) {
          Context &c = *static_cast<Context *>(p);
          const int k = i < c.extra ? 0 : 1;
          const Plan &plan = *c.plans[k];
          const int64_t first = i * c.base + std::min(i, c.extra);
          const bp_sdk_conv &g = *c.g;
          try {
            omp_set_num_threads(1);
            // The batch offsets of the slice's operands, by operator.
            const int64_t x_at = first * g.c_in * c.in_size, y_at = first * g.c_out * c.out_size;
            const void *a = at(c.a, c.op == BP_OP_CONV_TRANSPOSE ? y_at : x_at, c.size);
            const void *b = c.op == BP_OP_CONV_WEIGHT_GRAD ? at(c.b, y_at, c.size) : c.b;
            void *out = c.op == BP_OP_CONV_WEIGHT_GRAD
                            ? (i == 0 ? c.out : (*c.partial)[size_t(i)]->data())
                            : at(c.out, c.op == BP_OP_CONV ? y_at : x_at, c.size);
            const void *shared = c.own_weights[k]   ? c.own_weights[k]->data()
                                 : c.own_weights[0] ? c.own_weights[0]->data()
                                                    : nullptr;
            execute(plan, c.op, g.c_out, a, b, c.op == BP_OP_CONV_WEIGHT_GRAD ? nullptr : shared, c.bias, out);
          } catch (const std::exception &) {
            c.failed.store(true, std::memory_order_relaxed);
          }
        },
        &context);
    if (context.failed.load(std::memory_order_relaxed)) return false;
    if (op == BP_OP_CONV_TRANSPOSE && bias) {
      // Added after the product, in float32: oneDNN's backward data takes no bias.
      float *dx = static_cast<float *>(out);
      parallel_for(pool, g.n * g.c_in, in_size, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const float v = bias[row % g.c_in];
          for (float *p = dx + row * in_size, *e = p + in_size; p < e; ++p) *p += v;
        }
      });
    }
    if (op == BP_OP_CONV_WEIGHT_GRAD && slices > 1) {
      float *dw = static_cast<float *>(out);
      parallel_for(pool, weights, slices, [&](int64_t begin, int64_t end) {
        for (int64_t i = 1; i < slices; ++i) {
          const float *p = static_cast<const float *>(partial[size_t(i)]->data());
          for (int64_t j = begin; j < end; ++j) dw[j] += p[j];
        }
      });
    }
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

const std::string &onednn_conv_kernel(ConvData data) {
  static const std::array<std::string, 2> names = [] {
    std::array<std::string, 2> r;
    for (int d = 0; d < 2; ++d) {
      bp_sdk_conv g{};
      g.rank = 2, g.groups = 1, g.n = 1, g.c_in = 64, g.c_out = 64;
      for (int i = 0; i < BP_WINDOW_MAX_RANK; ++i)
        g.in[i] = g.out[i] = i < 2 ? 56 : 1, g.kernel[i] = i < 2 ? 3 : 1, g.stride[i] = g.dilation[i] = 1,
        g.pad_begin[i] = g.pad_end[i] = i < 2 ? 1 : 0;
      try {
        r[d] = make_plan(BP_OP_CONV, g, 1, d == 0 ? ConvData::f32 : ConvData::bf16, false, {1, 1}, g.c_out)
                   .implementation;
      } catch (const dnnl::error &e) {
        r[d] = std::string("unavailable: ") + e.what();
      }
    }
    return r;
  }();
  return names[data == ConvData::f32 ? 0 : 1];
}

bool onednn_conv_bf16_native() {
  const std::string &k = onednn_conv_kernel(ConvData::bf16);
  return k.find("avx512_core_bf16") != std::string::npos || onednn_conv_bf16_amx();
}

bool onednn_conv_bf16_amx() { return onednn_conv_kernel(ConvData::bf16).find("amx") != std::string::npos; }

}  // namespace cpu_backend
