// backplane_nn.hpp — layers, losses and SGD for C++ over backplane.hpp
// (since 1.1), shaped like PyTorch's C++ frontend: a Module has parameters
// on one device, forward() is made of recorded operators, so backward()
// on a loss fills every parameter's gradient there, and SGD updates the
// parameters in place with grad mode off.
//
//   bp::nn::Sequential net;
//   net.add(std::make_shared<bp::nn::Linear>(2, 1, device));
//   bp::nn::SGD opt(net.parameters(), 0.03);
//   bp::Tensor loss = bp::nn::mse_loss(net(X), y);
//   opt.zero_grad(); loss.backward(); opt.step();
//
// Since 1.6 the normalisation layers (LayerNorm, RMSNorm, GroupNorm,
// BatchNorm1d/2d) and train()/eval() on every Module, and the transformer
// kit: Embedding, GELU, SiLU, Softmax, LogSoftmax,
// TransformerEncoderLayer, TransformerEncoder and AdamW, each with
// PyTorch's parameter names, shapes, defaults and initialisation, so a
// torch state_dict maps onto the members one to one. Also since 1.6 the
// module state of torch.nn.Module: named_parameters(), named_buffers(),
// state_dict() and load_state_dict() by torch's dotted names and in its
// order, and save()/load() as safetensors files that torch's
// safetensors.torch reads and writes:
//
//   net.save("net.safetensors");        // torch: model.load_state_dict(load_file(...))
//   other.load("net.safetensors");      // values copied in place, checked first
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "backplane.hpp"
#include "backplane_spatial.hpp"

namespace bp::nn {

// A moved or new parameter: a leaf on `d` that requires gradients.
inline Tensor parameter_on(const Tensor &t, Device d) {
  if (t.device() == d && t.requires_grad() && t.is_leaf()) return t;
  Tensor p = t.device() == d ? t.detach() : t.to(d).detach();
  p.requires_grad_();
  return p;
}

// What a tensor of a Module's state is (since 1.6): a parameter (learned:
// in parameters() and so in the optimisers) or a buffer (state that is not
// trained, such as batch norm's running statistics).
enum class StateKind { parameter, buffer };

// Called by Module::visit_state for each tensor of a module's state: its
// dotted name from the top (torch's, "layers.0.linear1.weight"), the member
// itself (assigning to it rebinds the member) and its kind (since 1.6).
using StateVisitor = std::function<void(const std::string &name, Tensor &tensor, StateKind kind)>;

// The keys load_state_dict did not match (torch's _IncompatibleKeys, since
// 1.6): the module's keys the dict lacks, in state_dict() order, and the
// dict's keys the module lacks, in the dict's order.
struct LoadResult {
  std::vector<std::string> missing_keys, unexpected_keys;
};

// A layer or a network: forward(x) and the tensors it learns and keeps.
//
// Its state is the one list visit_state reports; parameters(),
// named_parameters(), named_buffers(), state_dict(), load_state_dict(),
// save(), load() and to() are all read from it, so a layer of one's own
// overrides visit_state once (since 1.6; one that overrides only
// parameters(), as before 1.6, trains on its own but is invisible to the
// containers and to state_dict()).
class Module {
 public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor &x) = 0;
  Tensor operator()(const Tensor &x) { return forward(x); }

  // Reports each defined tensor of the state to visit under prefix + its
  // name, in torch's state_dict order: this module's parameters, then its
  // buffers, in the order torch registers them, then each submodule's
  // (visit_child, "prefix + child name + '.'"). The default reports nothing,
  // right for a module without state (ReLU, Dropout). (since 1.6)
  virtual void visit_state(const std::string &, const StateVisitor &) {}

  // The learnable tensors (leaves that require gradients), in
  // named_parameters() order; a tensor reached twice (a module added to a
  // Sequential twice) is listed once, as in torch.
  virtual std::vector<Tensor> parameters() const {
    std::vector<Tensor> out;
    for (auto &[name, p] : named_parameters()) out.push_back(std::move(p));
    return out;
  }
  // (name, parameter) in torch's named_parameters() order, the tensors
  // themselves (not copies), each once under its first name (since 1.6).
  NamedTensors named_parameters() const { return named(StateKind::parameter); }
  // (name, buffer) likewise: BatchNorm's running_mean, running_var and
  // num_batches_tracked (a 0-d int64 tensor) as torch names them (since 1.6).
  NamedTensors named_buffers() const { return named(StateKind::buffer); }
  // Every parameter and buffer by name in torch's state_dict() order, a
  // tensor reached under two names listed under both (as torch lists it).
  // The tensors are detached views of the module's own storage, not
  // copies: a later optimiser step or load_state_dict shows through them,
  // and save() writes them as they are then. (since 1.6)
  NamedTensors state_dict() const {
    NamedTensors out;
    each_state([&](const std::string &name, Tensor &t, StateKind) { out.emplace_back(name, t.detach()); });
    return out;
  }

  // Copies state's values into this module's tensors in place, so that
  // optimisers built on parameters() keep training them (since 1.6). A key
  // of the module that state lacks is missing, a key of state the module
  // lacks unexpected: with strict either is bp::InvalidArgumentError naming
  // them all; without, they are skipped and returned. Every value matched
  // must have its tensor's shape (else bp::ShapeError) and dtype (else
  // bp::DtypeError, no conversion), each naming the key and both shapes or
  // dtypes, and be defined (else bp::InvalidArgumentError). All of that is
  // checked, and each value on another device copied to its tensor's device
  // (bp::Tensor::copy_to, an explicit transfer), before anything is
  // written: an error leaves every tensor as it was. state's tensors are
  // only read; the module keeps no reference to them.
  LoadResult load_state_dict(const std::map<std::string, Tensor> &state, bool strict = true);
  // The same from a state_dict() of another module (a key given twice is
  // bp::InvalidArgumentError).
  LoadResult load_state_dict(const NamedTensors &state, bool strict = true);

  // state_dict() as a safetensors file at path (bp::save_safetensors: a
  // temporary renamed over path; its errors), which torch reads with
  // safetensors.torch.load_file into a model of the same layers (since 1.6).
  void save(const std::string &path, const Metadata &metadata = {}) const {
    save_safetensors(path, state_dict(), metadata);
  }
  // load_state_dict(state, strict) of the file at path, read onto the
  // device of the module's first tensor (default_device() for a module
  // without state), so that a module on one device is written without a
  // second transfer, and copied from there to any tensor elsewhere;
  // bp::IoError and bp::FormatError for a file that cannot be read
  // (since 1.6).
  LoadResult load(const std::string &path, bool strict = true) {
    const NamedTensors own = state_dict();
    return load_state_dict(load_safetensors(path, own.empty() ? default_device() : own.front().second.device()),
                           strict);
  }

  // Moves the parameters and buffers to `d`: parameters become new leaves
  // there, gradients start anew, so build optimisers after moving (one
  // built before holds the old tensors). Tensors already on `d` stay the
  // same tensors.
  virtual void to(Device d) {
    visit_state("", [&](const std::string &, Tensor &t, StateKind kind) {
      t = kind == StateKind::parameter ? parameter_on(t, d) : t.to(d);
    });
  }
  void zero_grad() const {
    for (const Tensor &p : parameters()) p.clear_grad();
  }
  // Training (the default) or evaluation mode, PyTorch's module->train()
  // and eval(): the layers that behave differently (Dropout, batch norm,
  // MultiheadAttention's dropout) read is_training(); a container passes it
  // on to its layers (since 1.6).
  virtual void train(bool on = true) { training_ = on; }
  void eval() { train(false); }
  bool is_training() const { return training_; }

 protected:
  // visit_state's parts: a parameter or buffer of this module (skipped
  // when undefined: a layer without bias), and a submodule's state.
  static void visit_parameter(const std::string &prefix, const char *name, Tensor &t, const StateVisitor &visit) {
    if (t.defined()) visit(prefix + name, t, StateKind::parameter);
  }
  static void visit_buffer(const std::string &prefix, const char *name, Tensor &t, const StateVisitor &visit) {
    if (t.defined()) visit(prefix + name, t, StateKind::buffer);
  }
  static void visit_child(const std::string &prefix, const std::string &name, Module &child,
                          const StateVisitor &visit) {
    child.visit_state(prefix + name + ".", visit);
  }

 private:
  // visit_state for the readers: the hook hands out the members by
  // reference so that to() can rebind them, and these callers only read.
  void each_state(const StateVisitor &visit) const { const_cast<Module *>(this)->visit_state("", visit); }
  NamedTensors named(StateKind wanted) const {
    NamedTensors out;
    std::set<bp_tensor> seen;
    each_state([&](const std::string &name, Tensor &t, StateKind kind) {
      if (kind == wanted && seen.insert(t.handle()).second) out.emplace_back(name, t);
    });
    return out;
  }

  bool training_ = true;
};

namespace detail {
// "[2, 3]", as the errors print a shape.
inline std::string shape_text(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}
// "['a', 'b']", as Python's load_state_dict prints its keys.
inline std::string keys_text(const std::vector<std::string> &keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", '" : "'") + keys[i] + "'";
  return out + "]";
}
}  // namespace detail

inline LoadResult Module::load_state_dict(const std::map<std::string, Tensor> &state, bool strict) {
  NamedTensors own;  // each entry holds the member's handle: assigning into it writes the member
  each_state([&](const std::string &name, Tensor &t, StateKind) { own.emplace_back(name, t); });
  LoadResult result;
  std::set<std::string> own_names;
  for (const auto &[name, t] : own) {
    own_names.insert(name);
    if (!state.count(name)) result.missing_keys.push_back(name);
  }
  for (const auto &entry : state)
    if (!own_names.count(entry.first)) result.unexpected_keys.push_back(entry.first);
  if (strict && (!result.missing_keys.empty() || !result.unexpected_keys.empty()))
    throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                               "load_state_dict: missing keys " + detail::keys_text(result.missing_keys) +
                                   ", unexpected keys " + detail::keys_text(result.unexpected_keys),
                               "", -1, {});
  std::vector<std::pair<Tensor, Tensor>> writes;  // (member, value on the member's device)
  for (const auto &[name, t] : own) {
    const auto found = state.find(name);
    if (found == state.end()) continue;
    const Tensor &value = found->second;
    if (!value.defined())
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT, "load_state_dict: " + name + " is an undefined tensor",
                                 "", -1, {});
    if (value.shape() != t.shape())
      throw ShapeError(BP_ERR_SHAPE,
                       "load_state_dict: " + name + " has shape " + detail::shape_text(t.shape()) +
                           " in the module and " + detail::shape_text(value.shape()) + " in the state dict",
                       "", -1, {});
    if (value.dtype() != t.dtype())
      throw DtypeError(BP_ERR_DTYPE,
                       "load_state_dict: " + name + " has dtype " + bp_dtype_name(t.dtype()) + " in the module and " +
                           bp_dtype_name(value.dtype()) + " in the state dict",
                       "", -1, {});
    writes.emplace_back(t, value);
  }
  // Every transfer before the first write, so that a failed one leaves the
  // module as it was.
  for (auto &[t, value] : writes)
    if (value.device() != t.device()) value = value.copy_to(t.device());
  // The parameters require gradients: written as an optimiser writes them.
  NoGradGuard no_grad;
  for (const auto &[t, value] : writes) t.assign(value);
  return result;
}

inline LoadResult Module::load_state_dict(const NamedTensors &state, bool strict) {
  std::map<std::string, Tensor> by_name;
  for (const auto &[name, t] : state)
    if (!by_name.emplace(name, t).second)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT, "load_state_dict: the key '" + name + "' is given twice",
                                 "", -1, {});
  return load_state_dict(by_name, strict);
}

// Seeds for initialisers not given one: distinct and reproducible in a
// process (the n-th layer made gets the n-th seed).
inline uint64_t next_seed() {
  static std::atomic<uint64_t> count{0};
  return 0x5eed0000u + 2 * count.fetch_add(1);
}

// What Linear, the convolutions and the normalisation layers share: a
// learnable `weight` and `bias`, each of which a layer may go without.
class WeightAndBias : public Module {
 public:
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    visit_parameter(prefix, "weight", weight, visit);
    visit_parameter(prefix, "bias", bias, visit);
  }

  Tensor weight, bias;

 protected:
  // PyTorch's default for Linear and the convolutions: weight and bias
  // uniform in +-1/sqrt(fan_in).
  void init_uniform(const Shape &weight_shape, int64_t fan_in, bool with_bias, int64_t bias_size, Device d,
                    uint64_t seed) {
    const double bound = 1.0 / std::sqrt(double(fan_in > 0 ? fan_in : 1));
    weight = parameter_on(random_uniform(weight_shape, -bound, bound, seed, f32, d), d);
    if (with_bias) bias = parameter_on(random_uniform({bias_size}, -bound, bound, seed + 1, f32, d), d);
  }
};

// y = x W^T + b, W of shape [out, in] and b of [out] (PyTorch's Linear),
// both drawn uniformly from +-1/sqrt(in) as PyTorch does by default.
class Linear : public WeightAndBias {
 public:
  Linear(int64_t in_features, int64_t out_features, Device d = default_device(), uint64_t seed = next_seed(),
         bool with_bias = true) {
    init_uniform({out_features, in_features}, in_features, with_bias, out_features, d, seed);
  }
  Tensor forward(const Tensor &x) override {
    Tensor y = matmul(x, weight, false, true);
    return bias.defined() ? y + bias : y;
  }
};

// PyTorch's Embedding (since 1.6): forward(indices) is the rows of weight
// [num_embeddings, embedding_dim] that an integer tensor of any shape names,
// shaped indices.shape + [embedding_dim]. The lookup is the C API's
// indexing (bp_index, weight[indices]), so the gradient scatter-adds into
// the rows read, repeated indices adding up, on weight's device. weight is
// drawn from N(0, 1) as PyTorch draws it; padding_idx (negative counts from
// the end), when given, is a row of zeros that gets no gradient. As in
// PyTorch an index outside [0, num_embeddings) is bp::IndexError naming
// "Embedding", a negative one too (no counting from the end), and indices
// that are not integers are bp::DtypeError.
//
// With max_norm (since 1.6, as torch's), each call first renormalises in
// place the rows the indices name whose norm_type-norm (2 by default; any
// p > 0, or INFINITY for the largest magnitude) exceeds max_norm, scaling
// them by max_norm / (norm + 1e-7) with gradients off, as torch's
// embedding_renorm_ does: weight changes in the forward pass, so a graph
// that saved weight before (an earlier call not yet backward) cannot run
// backward after it (bp::StateError), as in torch. An index out of range
// is refused before any row is written.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt,
            Device d = default_device(), uint64_t seed = next_seed(), std::optional<double> max_norm = std::nullopt,
            double norm_type = 2.0)
      : num_embeddings(num_embeddings), embedding_dim(embedding_dim), max_norm(max_norm), norm_type(norm_type) {
    if (num_embeddings < 0 || embedding_dim < 0)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "Embedding: num_embeddings and embedding_dim must be >= 0", "", -1, {});
    if (!(norm_type > 0))
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "Embedding: norm_type must be > 0, not " + std::to_string(norm_type), "", -1, {});
    if (padding_idx) {
      if (*padding_idx < -num_embeddings || *padding_idx >= num_embeddings)
        throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                   "Embedding: padding_idx " + std::to_string(*padding_idx) +
                                       " must be within num_embeddings " + std::to_string(num_embeddings) +
                                       " (from " + std::to_string(-num_embeddings) + " to " +
                                       std::to_string(num_embeddings - 1) + ")",
                                   "", -1, {});
      this->padding_idx = (*padding_idx + num_embeddings) % num_embeddings;
    }
    Tensor w = random_normal({num_embeddings, embedding_dim}, 0, 1, seed, f32, d);
    if (this->padding_idx) w.index_put_({*this->padding_idx}, zeros({embedding_dim}, f32, d));
    weight = parameter_on(w, d);
  }
  Tensor forward(const Tensor &indices) override {
    const bp_dtype t = indices.dtype();
    const bool is_signed = t == BP_INT8 || t == BP_INT16 || t == BP_INT32 || t == BP_INT64;
    if (!is_signed && t != BP_UINT8)
      throw DtypeError(BP_ERR_DTYPE, std::string("Embedding: the indices must be an integer tensor, not ") +
                                         bp_dtype_name(t), "", -1, {});
    // A negative index names no row here (NumPy's indexing would count it
    // from the end): num_embeddings is out of range for bp_index as well.
    const Tensor wide = t == BP_INT64 ? indices : indices.astype(i64);
    const Tensor rows = is_signed ? where(wide < 0, num_embeddings, wide) : wide;
    Tensor out;
    try {
      if (max_norm) renorm(rows);
      out = weight.index({rows});
    } catch (const IndexError &e) {
      throw IndexError(BP_ERR_INDEX,
                       "Embedding: index out of range in self: the indices must be in [0, " +
                           std::to_string(num_embeddings) + ") (" + e.what() + ")",
                       e.op(), e.input(), e.devices());
    }
    if (padding_idx) {
      Shape keep_shape = indices.shape();
      keep_shape.push_back(1);
      out = where((indices != *padding_idx).reshape(keep_shape), out, out.detach());
    }
    return out;
  }
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    visit_parameter(prefix, "weight", weight, visit);
  }

  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // as a row number, 0 to num_embeddings - 1
  std::optional<double> max_norm;
  double norm_type;
  Tensor weight;

 private:
  // The rows of weight that rows (int64, any shape) names, each scaled to
  // max_norm when its norm is above it; reading them first throws for an
  // index out of range before anything is written.
  void renorm(const Tensor &rows) {
    NoGradGuard no_grad;
    const Tensor flat = rows.reshape({-1});
    const Tensor picked = weight.index({flat});
    const Tensor magnitude = picked.abs();
    const Tensor norms = std::isinf(norm_type) ? magnitude.max(1)
                         : norm_type == 1      ? magnitude.sum(1)
                         : norm_type == 2      ? picked.reduce(BP_OP_NORM, 1)
                                               : pow(pow(magnitude, norm_type).sum(1), 1.0 / norm_type);
    const Tensor scale = where(norms > *max_norm, *max_norm / (norms + 1e-7), 1.0);
    weight.index_put_({flat}, picked * scale.reshape({-1, 1}));
  }
};

// PyTorch's Conv1d/2d/3d (R = 1, 2, 3; since 1.6): weight [out, in / groups,
// K...] and bias [out], drawn as PyTorch draws them by default
// (kaiming_uniform with a = sqrt(5): uniform in +-1/sqrt(fan_in), fan_in =
// in / groups * prod(K), the bias likewise). A kernel_size of one value
// stands for every spatial axis.
template <int R>
class ConvNd : public WeightAndBias {
 public:
  ConvNd(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, ConvOptions options = {},
         bool with_bias = true, Device d = default_device(), uint64_t seed = next_seed())
      : options_(std::move(options)) {
    Shape shape{out_channels, in_channels / std::max<int32_t>(options_.groups, 1)};
    init(shape, kernel_size, d, seed, with_bias, out_channels);
  }
  Tensor forward(const Tensor &x) override { return conv(x, weight, bias, options_); }

 protected:
  ConvNd() = default;
  // weight of `shape` + the kernel's extents; fan_in = shape[1] * prod(K).
  void init(Shape shape, const std::vector<int64_t> &kernel_size, Device d, uint64_t seed, bool with_bias,
            int64_t bias_size) {
    int64_t fan_in = shape[1];
    for (int i = 0; i < R; ++i) {
      const int64_t k = kernel_size.size() == 1 ? kernel_size[0] : kernel_size.at(size_t(i));
      shape.push_back(k);
      fan_in *= k;
    }
    init_uniform(shape, fan_in, with_bias, bias_size, d, seed);
  }
  ConvOptions options_;
};
using Conv1d = ConvNd<1>;
using Conv2d = ConvNd<2>;
using Conv3d = ConvNd<3>;

// PyTorch's ConvTranspose2d (since 1.6): weight [in, out / groups, K...],
// bias [out], PyTorch's default initialisation (fan_in = out / groups *
// prod(K)); options.output_padding adds to the result's extents.
class ConvTranspose2d : public ConvNd<2> {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
                  ConvOptions options = {}, bool with_bias = true, Device d = default_device(),
                  uint64_t seed = next_seed()) {
    options_ = std::move(options);
    init({in_channels, out_channels / std::max<int32_t>(options_.groups, 1)}, kernel_size, d, seed, with_bias,
         out_channels);
  }
  Tensor forward(const Tensor &x) override { return conv_transpose(x, weight, bias, options_); }
};

class ReLU : public Module {
 public:
  Tensor forward(const Tensor &x) override { return x.relu(); }
};

class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor &x) override { return x.sigmoid(); }
};

// x * Phi(x), Phi the standard normal CDF (PyTorch's gelu, since 1.6):
// approximate "none" is exactly x * 0.5 * (1 + erf(x / sqrt(2))), "tanh"
// PyTorch's 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))). Made of
// recorded operators in torch's order of operations, so values agree with
// PyTorch's to float32 rounding and gradients come from autograd on every
// device; another approximate is bp::InvalidArgumentError.
inline Tensor gelu(const Tensor &x, const std::string &approximate = "none") {
  if (approximate == "none") return x * 0.5 * ((x * 0.70710678118654752440).erf() + 1.0);
  if (approximate == "tanh") {
    const Tensor inner = (x + x * x * x * 0.044715) * 0.79788456080286535588;  // sqrt(2 / pi)
    return x * 0.5 * (inner.tanh() + 1.0);
  }
  throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                             "gelu: approximate is \"none\" or \"tanh\", not \"" + approximate + "\"", "", -1, {});
}

// x * sigmoid(x), the swish (PyTorch's silu, since 1.6).
inline Tensor silu(const Tensor &x) { return x * x.sigmoid(); }

// gelu(x, approximate) as a layer (PyTorch's GELU, since 1.6); the
// constructor checks approximate.
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : approximate(std::move(approximate)) {
    if (this->approximate != "none" && this->approximate != "tanh")
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "GELU: approximate is \"none\" or \"tanh\", not \"" + this->approximate + "\"",
                                 "", -1, {});
  }
  Tensor forward(const Tensor &x) override { return gelu(x, approximate); }

  std::string approximate;
};

// silu(x) as a layer (PyTorch's SiLU, since 1.6).
class SiLU : public Module {
 public:
  Tensor forward(const Tensor &x) override { return silu(x); }
};

// PyTorch's Softmax(dim) and LogSoftmax(dim) (since 1.6): the SOFTMAX and
// LOG_SOFTMAX operators along dim (negative counts from the end). PyTorch
// has no default dim worth keeping (it guesses one and warns), so dim is
// required.
class Softmax : public Module {
 public:
  explicit Softmax(int32_t dim) : dim(dim) {}
  Tensor forward(const Tensor &x) override { return x.softmax(dim); }

  int32_t dim;
};

class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(int32_t dim) : dim(dim) {}
  Tensor forward(const Tensor &x) override { return x.log_softmax(dim); }

  int32_t dim;
};

// Modules applied in order; net[i] is the i-th.
class Sequential : public Module {
 public:
  Sequential &add(std::shared_ptr<Module> m) {
    layers_.push_back(std::move(m));
    return *this;
  }
  Module &operator[](size_t i) const { return *layers_.at(i); }
  size_t size() const { return layers_.size(); }
  Tensor forward(const Tensor &x) override {
    Tensor y = x;
    for (const auto &m : layers_) y = m->forward(y);
    return y;
  }
  // The i-th layer's state under "i." (torch's "0.weight").
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    for (size_t i = 0; i < layers_.size(); ++i) visit_child(prefix, std::to_string(i), *layers_[i], visit);
  }
  void train(bool on = true) override {
    Module::train(on);
    for (const auto &m : layers_) m->train(on);
  }

 private:
  std::vector<std::shared_ptr<Module>> layers_;
};

// ---- normalisation (since 1.6) ----------------------------------------------

// What the normalisation layers share: an optional scale `weight` (ones)
// and shift `bias` (zeros) of one shape.
class AffineNorm : public WeightAndBias {
 protected:
  AffineNorm(const Shape &shape, bool with_weight, bool with_bias, Device d) {
    if (with_weight) weight = full(shape, 1.0, f32, d).requires_grad_();
    if (with_bias) bias = full(shape, 0.0, f32, d).requires_grad_();
  }
};

// PyTorch's LayerNorm: the last normalized_shape.size() axes, weight and
// bias of that shape when elementwise_affine (with_bias false: no bias).
class LayerNorm : public AffineNorm {
 public:
  explicit LayerNorm(const Shape &normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     bool with_bias = true, Device d = default_device())
      : AffineNorm(normalized_shape, elementwise_affine, elementwise_affine && with_bias, d),
        axes_(int32_t(normalized_shape.size())),
        eps_(eps) {}
  Tensor forward(const Tensor &x) override { return layer_norm(x, axes_, weight, bias, eps_); }

 private:
  int32_t axes_;
  double eps_;
};

// PyTorch 2.4's RMSNorm: x / sqrt(mean(x^2) + eps) * weight over the last
// normalized_shape.size() axes; eps by default float32's machine epsilon
// (PyTorch's eps=None for float32 inputs).
class RMSNorm : public AffineNorm {
 public:
  explicit RMSNorm(const Shape &normalized_shape, double eps = 1.1920928955078125e-07,
                   bool elementwise_affine = true, Device d = default_device())
      : AffineNorm(normalized_shape, elementwise_affine, false, d), axes_(int32_t(normalized_shape.size())), eps_(eps) {}
  Tensor forward(const Tensor &x) override { return rms_norm(x, axes_, weight, eps_); }

 private:
  int32_t axes_;
  double eps_;
};

// PyTorch's GroupNorm: x [N, C, ...] in `groups` groups of channels, weight
// and bias per channel when affine.
class GroupNorm : public AffineNorm {
 public:
  GroupNorm(int64_t groups, int64_t channels, double eps = 1e-5, bool affine = true, Device d = default_device())
      : AffineNorm({channels}, affine, affine, d), groups_(groups), eps_(eps) {}
  Tensor forward(const Tensor &x) override { return group_norm(x, groups_, weight, bias, eps_); }

 private:
  int64_t groups_;
  double eps_;
};

// PyTorch's BatchNorm1d and BatchNorm2d: in training the batch's statistics
// per channel, moving running_mean and running_var (zeros and ones) by
// momentum (PyTorch's rule: running = (1 - momentum) running + momentum
// batch, the unbiased batch variance) and counting num_batches_tracked; in
// evaluation (eval()) the running statistics. The running statistics are
// buffers, as torch's (not parameters; to() moves them, state_dict() holds
// them): running_mean and running_var float32 [num_features] and
// num_batches_tracked a 0-d int64 tensor (since 1.6 a tensor, as torch's),
// all three undefined without track_running_stats.
class BatchNorm : public AffineNorm {
 public:
  explicit BatchNorm(int64_t num_features, double eps = 1e-5, double momentum = 0.1, bool affine = true,
                     bool track_running_stats = true, Device d = default_device())
      : AffineNorm({num_features}, affine, affine, d), eps_(eps), momentum_(momentum) {
    if (track_running_stats) {
      running_mean = zeros({num_features}, f32, d);
      running_var = ones({num_features}, f32, d);
      num_batches_tracked = zeros({}, i64, d);
    }
  }
  Tensor forward(const Tensor &x) override {
    if (is_training() && running_mean.defined())
      check(bp_binary_scalar_out(BP_OP_ADD, num_batches_tracked.handle(), 1, 0, num_batches_tracked.handle()));
    const bool batch_statistics = is_training() || !running_mean.defined();
    return batch_norm(x, running_mean, running_var, weight, bias, batch_statistics, momentum_, eps_);
  }
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    AffineNorm::visit_state(prefix, visit);
    visit_buffer(prefix, "running_mean", running_mean, visit);
    visit_buffer(prefix, "running_var", running_var, visit);
    visit_buffer(prefix, "num_batches_tracked", num_batches_tracked, visit);
  }

  Tensor running_mean, running_var, num_batches_tracked;

 private:
  double eps_, momentum_;
};
using BatchNorm1d = BatchNorm;
using BatchNorm2d = BatchNorm;

// Multi-head attention over [N, L, E] inputs (PyTorch's MultiheadAttention
// with batch_first = true and kdim = vdim = embed_dim), with its parameters
// in its order and layout: in_proj_weight [3E, E] and in_proj_bias [3E]
// (the query, key and value projections stacked), out_proj [E, E] and its
// bias; initialised as PyTorch does (Xavier-uniform in_proj_weight, zero
// biases, out_proj's weight as Linear's). forward(x) is self-attention;
// forward(q, k, v, options) attends q to k and v head by head through
// bp::attention (options.mask in its convention, broadcasting to
// [N, num_heads, L, S]; options.dropout applied only in training mode).
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, Device d = default_device(), uint64_t seed = next_seed(),
                     bool with_bias = true)
      : embed_dim(embed_dim), num_heads(num_heads), out_proj(embed_dim, embed_dim, d, seed + 1, with_bias) {
    if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "MultiheadAttention: embed_dim must be a positive multiple of num_heads",
                                 "", -1, {});
    const double bound = std::sqrt(6.0 / double(4 * embed_dim));  // xavier_uniform_ of [3E, E]
    in_proj_weight = parameter_on(random_uniform({3 * embed_dim, embed_dim}, -bound, bound, seed, f32, d), d);
    if (with_bias) {
      in_proj_bias = parameter_on(zeros({3 * embed_dim}, f32, d), d);
      out_proj.bias = parameter_on(zeros({embed_dim}, f32, d), d);
    }
  }
  Tensor forward(const Tensor &x) override { return forward(x, x, x); }
  Tensor forward(const Tensor &query, const Tensor &key, const Tensor &value, AttentionOptions options = {}) {
    const int64_t e = embed_dim;
    if (!is_training()) options.dropout = 0;
    const Tensor q = project(query, 0), k = project(key, e), v = project(value, 2 * e);
    const Tensor heads = attention(q, k, v, options);  // [N, H, L, E / H]
    const Shape s = query.shape();
    return out_proj(heads.permute({0, 2, 1, 3}).reshape({s.at(0), s.at(1), e}));
  }
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    visit_parameter(prefix, "in_proj_weight", in_proj_weight, visit);
    visit_parameter(prefix, "in_proj_bias", in_proj_bias, visit);
    visit_child(prefix, "out_proj", out_proj, visit);
  }

  int64_t embed_dim, num_heads;
  Tensor in_proj_weight, in_proj_bias;
  Linear out_proj;

 private:
  // x [N, L, E] through rows [first, first + E) of the projection, split
  // into heads: [N, H, L, E / H].
  Tensor project(const Tensor &x, int64_t first) const {
    Tensor y = matmul(x, in_proj_weight.slice(0, first, first + embed_dim), false, true);
    if (in_proj_bias.defined()) y = y + in_proj_bias.slice(0, first, first + embed_dim);
    const Shape s = x.shape();
    return y.reshape({s.at(0), s.at(1), num_heads, embed_dim / num_heads}).permute({0, 2, 1, 3});
  }
};

// 2-d pooling layers over [N, C, H, W] (since 1.6), PyTorch's defaults:
// stride = kernel, no padding; AvgPool2d counts the padding in its divisor
// (count_include_pad) as PyTorch's does. Both take one kernel, stride,
// padding and dilation for H and W.
class Pool2d : public Module {
 protected:
  Pool2d(int64_t kernel, int64_t stride, int64_t padding, int64_t dilation, bool ceil_mode)
      : options_(pool_options({kernel, kernel}, {stride, stride}, {padding, padding}, {dilation, dilation})
                     .ceil_mode(ceil_mode)) {}
  PoolOptions options_;
};

class MaxPool2d : public Pool2d {
 public:
  MaxPool2d(int64_t kernel, int64_t stride = 0, int64_t padding = 0, int64_t dilation = 1, bool ceil_mode = false)
      : Pool2d(kernel, stride, padding, dilation, ceil_mode) {}
  Tensor forward(const Tensor &x) override { return max_pool(x, options_); }
};

class AvgPool2d : public Pool2d {
 public:
  AvgPool2d(int64_t kernel, int64_t stride = 0, int64_t padding = 0, bool ceil_mode = false,
            bool count_include_pad = true)
      : Pool2d(kernel, stride, padding, 1, ceil_mode) {
    options_.include_pad(count_include_pad);
  }
  Tensor forward(const Tensor &x) override { return avg_pool(x, options_); }
};

// Average pooling to a fixed [oh, ow] whatever the input's extents.
class AdaptiveAvgPool2d : public Module {
 public:
  AdaptiveAvgPool2d(int64_t oh, int64_t ow) : size_{oh, ow} {}
  Tensor forward(const Tensor &x) override { return adaptive_avg_pool(x, size_); }

 private:
  std::vector<int64_t> size_;
};

// In training mode x * keep / (1 - p), a fresh mask per call (seeds from
// `seed` on); the identity in evaluation mode and for p = 0 (no operator
// runs, as in PyTorch).
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5, uint64_t seed = next_seed()) : p_(p), seed_(seed) {}
  double p() const { return p_; }
  Tensor forward(const Tensor &x) override {
    return is_training() && p_ > 0 ? dropout(x, p_, seed_ + calls_++) : x;
  }

 private:
  double p_;
  uint64_t seed_, calls_ = 0;
};

// ---- the transformer encoder (since 1.6) ---------------------------------

namespace detail {
// A mask in bp_attention's convention as an additive float32 one: 0 where a
// bool mask takes part, -inf where it hides; a float mask as it is.
inline Tensor additive_mask(const Tensor &mask) {
  if (mask.dtype() != BP_BOOL) return mask;
  return where(mask, zeros({}, f32, mask.device()), -INFINITY);
}
// src_mask ([L, S] or broadcasting to [N, H, L, S]) and a key padding mask
// [N, S] as one attention mask: bool when both are, else additive.
inline Tensor combined_mask(const Tensor &src_mask, const Tensor &key_padding_mask) {
  if (!key_padding_mask.defined()) return src_mask;
  const Shape s = key_padding_mask.shape();
  const Tensor padding = key_padding_mask.reshape({s.at(0), 1, 1, s.at(1)});
  if (!src_mask.defined()) return padding;
  if (src_mask.dtype() == BP_BOOL && padding.dtype() == BP_BOOL) return src_mask & padding;
  return additive_mask(src_mask) + additive_mask(padding);
}
// The k-th seed derived from seed (SplitMix64's finaliser): the dropout
// streams of one layer, each counting up from its seed call by call, start
// far apart and do not run into each other or into a neighbour's.
inline uint64_t mixed_seed(uint64_t seed, uint64_t k) {
  uint64_t z = seed + k * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace detail

// PyTorch's TransformerEncoderLayer (since 1.6) over [N, L, E] inputs
// (batch_first = true; false, the [L, N, E] layout, is
// bp::InvalidArgumentError): self-attention and a feed-forward block
// (linear1, the activation "relu" or "gelu", dropout, linear2), each with a
// residual connection, layer norm and dropout. Post-norm (norm_first false,
// PyTorch's default): x = norm1(x + sa(x)); x = norm2(x + ff(x)); pre-norm:
// x = x + sa(norm1(x)); x = x + ff(norm2(x)). The submodules carry torch's
// names, shapes and initialisation (self_attn, linear1, dropout, linear2,
// norm1, norm2, dropout1, dropout2), so "self_attn.in_proj_weight" of a
// torch state_dict is self_attn.in_proj_weight here; parameters() lists
// them in torch's named_parameters() order. The attention weights drop out
// with probability `dropout` in training mode, as torch's self_attn does.
//
// forward(src, src_mask, src_key_padding_mask, is_causal) takes the masks
// in bp_attention's convention, the opposite of torch's bool one: a bool
// true takes part (torch's True hides: pass ~mask), a float mask is added
// to the scores. src_mask broadcasts to [N, nhead, L, L] (an [L, L] mask,
// or [N, 1, L, L]); src_key_padding_mask is [N, L]. is_causal without a
// src_mask hides the keys after each query (bp_attention's causal); with
// one it is torch's hint that src_mask is causal, and src_mask is used.
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, int64_t dim_feedforward = 2048, double dropout = 0.1,
                          const std::string &activation = "relu", double layer_norm_eps = 1e-5,
                          bool batch_first = true, bool norm_first = false, bool bias = true,
                          Device d = default_device(), uint64_t seed = next_seed())
      : self_attn(d_model, nhead, d, seed, bias),
        linear1(d_model, dim_feedforward, d, seed + 3, bias),
        dropout(dropout, detail::mixed_seed(seed, 1)),
        linear2(dim_feedforward, d_model, d, seed + 5, bias),
        norm1({d_model}, layer_norm_eps, true, bias, d),
        norm2({d_model}, layer_norm_eps, true, bias, d),
        dropout1(dropout, detail::mixed_seed(seed, 2)),
        dropout2(dropout, detail::mixed_seed(seed, 3)),
        d_model(d_model),
        nhead(nhead),
        dim_feedforward(dim_feedforward),
        activation(activation),
        layer_norm_eps(layer_norm_eps),
        norm_first(norm_first),
        bias(bias),
        p_(dropout),
        seed_(detail::mixed_seed(seed, 4)) {
    if (!batch_first)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "TransformerEncoderLayer: batch_first = false ([L, N, E] inputs) is not supported; "
                                 "the C++ layers take [N, L, E]",
                                 "", -1, {});
    if (activation != "relu" && activation != "gelu")
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "TransformerEncoderLayer: activation should be \"relu\" or \"gelu\", not \"" +
                                     activation + "\"",
                                 "", -1, {});
    if (!(dropout >= 0 && dropout <= 1))
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "TransformerEncoderLayer: dropout must be in [0, 1], not " + std::to_string(dropout),
                                 "", -1, {});
  }
  Tensor forward(const Tensor &src) override { return forward(src, Tensor()); }
  Tensor forward(const Tensor &src, const Tensor &src_mask, const Tensor &src_key_padding_mask = Tensor(),
                 bool is_causal = false) {
    AttentionOptions options;
    options.mask = detail::combined_mask(src_mask, src_key_padding_mask);
    options.causal = is_causal && !src_mask.defined();
    if (is_training() && p_ > 0) {
      options.dropout = p_;
      options.seed = seed_ + calls_++;
    }
    Tensor x = src;
    if (norm_first) {
      x = x + sa_block(norm1(x), options);
      return x + ff_block(norm2(x));
    }
    x = norm1(x + sa_block(x, options));
    return norm2(x + ff_block(x));
  }
  // The submodules in torch's order; the dropouts have no state.
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    visit_child(prefix, "self_attn", self_attn, visit);
    visit_child(prefix, "linear1", linear1, visit);
    visit_child(prefix, "linear2", linear2, visit);
    visit_child(prefix, "norm1", norm1, visit);
    visit_child(prefix, "norm2", norm2, visit);
  }
  void train(bool on = true) override {
    Module::train(on);
    for (Module *m : std::initializer_list<Module *>{&self_attn, &linear1, &dropout, &linear2, &norm1, &norm2,
                                                     &dropout1, &dropout2})
      m->train(on);
  }
  // An independent layer of the same configuration, mode and parameter
  // values (torch's copy.deepcopy): parameters of its own on the same
  // device, dropout masks from seeds of its own.
  std::shared_ptr<TransformerEncoderLayer> clone(uint64_t seed = next_seed()) const {
    const Tensor &w = self_attn.in_proj_weight;
    auto copy = std::make_shared<TransformerEncoderLayer>(d_model, nhead, dim_feedforward, p_, activation,
                                                          layer_norm_eps, true, norm_first, bias, w.device(), seed);
    copy->load_state_dict(state_dict());
    copy->train(is_training());
    return copy;
  }

  MultiheadAttention self_attn;
  Linear linear1;
  Dropout dropout;
  Linear linear2;
  LayerNorm norm1, norm2;
  Dropout dropout1, dropout2;
  int64_t d_model, nhead, dim_feedforward;
  std::string activation;
  double layer_norm_eps;
  bool norm_first, bias;

 private:
  Tensor sa_block(const Tensor &x, const AttentionOptions &options) {
    return dropout1(self_attn.forward(x, x, x, options));
  }
  Tensor ff_block(const Tensor &x) {
    const Tensor h = linear1(x);
    return dropout2(linear2(dropout(activation == "gelu" ? gelu(h) : h.relu())));
  }
  double p_;
  uint64_t seed_, calls_ = 0;
};

// PyTorch's TransformerEncoder (since 1.6): num_layers independent copies of
// encoder_layer (layers[i], each starting from encoder_layer's parameter
// values, as torch's deep copies do) applied in turn, then norm when given
// (any Module, a LayerNorm in GPT-style models). forward(src, mask,
// src_key_padding_mask, is_causal) passes the masks, in
// TransformerEncoderLayer's convention, to every layer.
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer &encoder_layer, int64_t num_layers,
                     std::shared_ptr<Module> norm = nullptr)
      : norm(std::move(norm)), num_layers(num_layers) {
    if (num_layers < 0)
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "TransformerEncoder: num_layers must be >= 0, not " + std::to_string(num_layers), "",
                                 -1, {});
    for (int64_t i = 0; i < num_layers; ++i) layers.push_back(encoder_layer.clone());
  }
  Tensor forward(const Tensor &src) override { return forward(src, Tensor()); }
  Tensor forward(const Tensor &src, const Tensor &mask, const Tensor &src_key_padding_mask = Tensor(),
                 bool is_causal = false) {
    Tensor x = src;
    for (const auto &layer : layers) x = layer->forward(x, mask, src_key_padding_mask, is_causal);
    return norm ? norm->forward(x) : x;
  }
  // torch's ModuleList "layers.<i>." and then "norm.".
  void visit_state(const std::string &prefix, const StateVisitor &visit) override {
    for (size_t i = 0; i < layers.size(); ++i) visit_child(prefix, "layers." + std::to_string(i), *layers[i], visit);
    if (norm) visit_child(prefix, "norm", *norm, visit);
  }
  void train(bool on = true) override {
    Module::train(on);
    for (const auto &layer : layers) layer->train(on);
    if (norm) norm->train(on);
  }

  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers;
  std::shared_ptr<Module> norm;
  int64_t num_layers;
};

// mean((prediction - target)^2)
inline Tensor mse_loss(const Tensor &prediction, const Tensor &target) {
  return (prediction - target).square().mean();
}

// mean over the batch of -log softmax(logits)[label]: logits [N, C], labels
// [N] of class indices (integers), on the logits' device. A negative label
// counts from the end (as every index does here); one outside [-C, C) is
// bp::IndexError.
inline Tensor cross_entropy(const Tensor &logits, const Tensor &labels) {
  const int64_t n = logits.shape().at(0);
  const Tensor rows = arange(0, double(n), 1, i64, logits.device());
  const Tensor picked = logits.gather_nd(stack({rows, labels.astype(i64)}, 1));
  return (logits.reduce(BP_OP_LOGSUMEXP, 1) - picked).mean();
}

// What SGD and AdamW share: their parameters, zero_grad, and a step that
// writes into the parameters with _out operators under NoGradGuard, its
// buffers made on the first step so that later ones allocate nothing.
class Optimizer {
 public:
  void zero_grad() const {
    for (const Tensor &p : params_) p.clear_grad();
  }

 protected:
  explicit Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {}
  // f(i, params_[i], its gradient) for the parameters that have one.
  template <class F>
  void each_with_grad(F &&f) const {
    for (size_t i = 0; i < params_.size(); ++i) {
      const Tensor g = params_[i].grad();
      if (g.defined()) f(i, params_[i], g);
    }
  }
  static Tensor buffer_for(const Tensor &p) { return zeros(p.shape(), p.dtype(), p.device()); }

  std::vector<Tensor> params_;
};

// Stochastic gradient descent with optional momentum and weight decay
// (PyTorch's update rule).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, double lr, double momentum = 0, double weight_decay = 0)
      : Optimizer(std::move(params)), lr_(lr), momentum_(momentum), weight_decay_(weight_decay) {}

  void step() {
    NoGradGuard no_grad;
    if (scratch_.empty())
      for (const Tensor &p : params_) {
        scratch_.push_back(buffer_for(p));
        velocity_.push_back(momentum_ != 0 ? buffer_for(p) : Tensor());
        decay_.push_back(weight_decay_ != 0 ? buffer_for(p) : Tensor());
      }
    each_with_grad([&](size_t i, const Tensor &p, const Tensor &g) {
      const Tensor *d = &g;
      if (weight_decay_ != 0) {  // d = g + weight_decay * p
        check(bp_binary_scalar_out(BP_OP_MUL, p.handle(), weight_decay_, 0, decay_[i].handle()));
        binary_out(BP_OP_ADD, decay_[i], g, decay_[i]);
        d = &decay_[i];
      }
      if (momentum_ != 0) {  // v = momentum * v + d
        check(bp_binary_scalar_out(BP_OP_MUL, velocity_[i].handle(), momentum_, 0, velocity_[i].handle()));
        binary_out(BP_OP_ADD, velocity_[i], *d, velocity_[i]);
        d = &velocity_[i];
      }
      // p += -lr * d
      check(bp_binary_scalar_out(BP_OP_MUL, d->handle(), -lr_, 0, scratch_[i].handle()));
      binary_out(BP_OP_ADD, p, scratch_[i], p);
    });
  }

 private:
  double lr_, momentum_, weight_decay_;
  std::vector<Tensor> scratch_, velocity_, decay_;
};

// PyTorch's AdamW (since 1.6): Adam with decoupled weight decay, torch's
// defaults (lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 1e-2) and
// update, in its order of operations, per parameter with a gradient:
//   p *= 1 - lr * weight_decay
//   m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2
//   p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// t counting that parameter's steps (one without a gradient is skipped and
// keeps its count), as torch's. With amsgrad (since 1.6, torch's), the
// running maximum v_max = max(v_max, v) (from zeros) stands for v in the
// last line.
class AdamW : public Optimizer {
 public:
  AdamW(std::vector<Tensor> params, double lr = 1e-3, std::pair<double, double> betas = {0.9, 0.999},
        double eps = 1e-8, double weight_decay = 1e-2, bool amsgrad = false)
      : Optimizer(std::move(params)), lr_(lr), beta1_(betas.first), beta2_(betas.second), eps_(eps),
        weight_decay_(weight_decay), amsgrad_(amsgrad) {
    if (!(lr >= 0) || !(eps >= 0) || !(weight_decay >= 0) || !(beta1_ >= 0 && beta1_ < 1) ||
        !(beta2_ >= 0 && beta2_ < 1))
      throw InvalidArgumentError(BP_ERR_INVALID_ARGUMENT,
                                 "AdamW: lr, eps and weight_decay must be >= 0 and each beta in [0, 1)", "", -1,
                                 {});
  }

  void step() {
    NoGradGuard no_grad;
    if (exp_avg_.empty())
      for (const Tensor &p : params_) {
        exp_avg_.push_back(buffer_for(p));
        exp_avg_sq_.push_back(buffer_for(p));
        max_exp_avg_sq_.push_back(amsgrad_ ? buffer_for(p) : Tensor());
        scratch_.push_back(buffer_for(p));
        steps_.push_back(0);
      }
    each_with_grad([&](size_t i, const Tensor &p, const Tensor &g) {
      const Tensor &m = exp_avg_[i], &v = exp_avg_sq_[i], &s = scratch_[i];
      const int64_t t = ++steps_[i];
      if (weight_decay_ != 0) scalar_out(BP_OP_MUL, p, 1 - lr_ * weight_decay_, p);
      scalar_out(BP_OP_MUL, m, beta1_, m);  // m = beta1 m + (1 - beta1) g
      scalar_out(BP_OP_MUL, g, 1 - beta1_, s);
      binary_out(BP_OP_ADD, m, s, m);
      scalar_out(BP_OP_MUL, v, beta2_, v);  // v = beta2 v + (1 - beta2) g g
      binary_out(BP_OP_MUL, g, g, s);
      scalar_out(BP_OP_MUL, s, 1 - beta2_, s);
      binary_out(BP_OP_ADD, v, s, v);
      if (amsgrad_) binary_out(BP_OP_MAXIMUM, max_exp_avg_sq_[i], v, max_exp_avg_sq_[i]);
      const Tensor &second = amsgrad_ ? max_exp_avg_sq_[i] : v;
      const double bias_correction1 = 1 - std::pow(beta1_, double(t));
      const double bias_correction2 = 1 - std::pow(beta2_, double(t));
      check(bp_unary_out(BP_OP_SQRT, second.handle(), s.handle()));  // s = sqrt(v) / sqrt(bc2) + eps
      scalar_out(BP_OP_DIV, s, std::sqrt(bias_correction2), s);
      scalar_out(BP_OP_ADD, s, eps_, s);
      binary_out(BP_OP_DIV, m, s, s);  // p += -lr / bc1 * m / s
      scalar_out(BP_OP_MUL, s, -lr_ / bias_correction1, s);
      binary_out(BP_OP_ADD, p, s, p);
    });
  }

 private:
  static void scalar_out(bp_op op, const Tensor &a, double scalar, const Tensor &out) {
    check(bp_binary_scalar_out(op, a.handle(), scalar, 0, out.handle()));
  }
  double lr_, beta1_, beta2_, eps_, weight_decay_;
  bool amsgrad_;
  std::vector<Tensor> exp_avg_, exp_avg_sq_, max_exp_avg_sq_, scratch_;
  std::vector<int64_t> steps_;
};

}  // namespace bp::nn
