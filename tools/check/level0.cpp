// L0 load and ABI: the entry symbol, versions, the table, init, and that
// NULL and invalid arguments are answered with errors instead of crashes.
#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "cases.hpp"
#include "groups.hpp"
#include "names.hpp"

namespace bpcheck {

namespace {

std::string base_name(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Defined, exported symbols of an ELF64 shared object other than the entry
// symbol; *error is set when the file cannot be read as ELF64.
std::vector<std::string> extra_exports(const std::string &path, std::string *error) {
  std::vector<std::string> out;
  std::ifstream in(path, std::ios::binary);
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr) || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0 ||
      file[EI_CLASS] != ELFCLASS64) {
    *error = "not an ELF64 file";
    return out;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > file.size()) {
    *error = "no section headers";
    return out;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), file.data() + eh.e_shoff, sizeof(Elf64_Shdr) * eh.e_shnum);
  for (const Elf64_Shdr &sh : sections) {
    if (sh.sh_type != SHT_DYNSYM || sh.sh_link >= sections.size()) continue;
    const Elf64_Shdr &strtab = sections[sh.sh_link];
    if (sh.sh_offset + sh.sh_size > file.size() || strtab.sh_offset + strtab.sh_size > file.size()) break;
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, file.data() + sh.sh_offset + off, sizeof sym);
      const int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS) continue;  // imports, version nodes
      if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT && ELF64_ST_VISIBILITY(sym.st_other) != STV_PROTECTED)
        continue;
      if (type == STT_SECTION || type == STT_FILE) continue;
      if (sym.st_name >= strtab.sh_size) continue;
      std::string name(file.data() + strtab.sh_offset + sym.st_name);
      if (name == BP_PLUGIN_ENTRY_SYMBOL || name == "_init" || name == "_fini" || name == "_edata" || name == "_end" ||
          name == "__bss_start")
        continue;
      out.push_back(name);
    }
  }
  return out;
}

}  // namespace

void group_load(Context &ctx) {
  Recorder &rec = ctx.rec;
  const std::string &path = ctx.options.plugin_path;
  const std::string file = base_name(path);
  if (file.rfind("libbackplane-", 0) != 0 || file.size() < 17 || file.compare(file.size() - 3, 3, ".so") != 0)
    rec.note("the core's discovery only loads files named libbackplane-<name>.so; this one is " + file);

  rec.begin("dlopen");
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!lib) {
    const char *e = dlerror();
    rec.fail(std::string("cannot load: ") + (e ? e : "dlopen failed"));
    return;
  }
  rec.pass("loads with dlopen(RTLD_NOW): no unresolved symbols");

  auto get = reinterpret_cast<bp_plugin_get_api_fn>(dlsym(lib, BP_PLUGIN_ENTRY_SYMBOL));
  if (!get) {
    rec.fail(std::string("missing entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL);
    return;
  }
  rec.pass(std::string("has the entry symbol ") + BP_PLUGIN_ENTRY_SYMBOL);

  std::string elf_error;
  std::vector<std::string> extra = extra_exports(path, &elf_error);
  if (!elf_error.empty()) {
    rec.note("could not list the exported symbols: " + elf_error);
  } else if (!extra.empty()) {
    std::string list;
    for (size_t i = 0; i < extra.size() && i < 5; ++i) list += (i ? ", " : "") + extra[i];
    if (extra.size() > 5) list += ", ...";
    rec.fail(format("exports %zu symbol(s) besides %s (%s): link with the plugin version script "
                    "(backplane_add_plugin does)",
                    extra.size(), BP_PLUGIN_ENTRY_SYMBOL, list.c_str()));
  } else {
    rec.pass(std::string("exports only ") + BP_PLUGIN_ENTRY_SYMBOL);
  }

  rec.begin(format("bp_plugin_get_api(%d, %d)", BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR));
  const bp_plugin_api *api = get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR);
  if (!api) {
    rec.fail(format("bp_plugin_get_api returned NULL (the plugin refused host ABI %d.%d)", BP_PLUGIN_ABI_MAJOR,
                    BP_PLUGIN_ABI_MINOR));
    return;
  }
  // The first four fields exist in every table of every version.
  rec.info("abi", format("%u.%u", api->abi_major, api->abi_minor));
  rec.info("struct_size", std::to_string(api->struct_size));
  if (api->abi_major != BP_PLUGIN_ABI_MAJOR) {
    rec.fail(format("ABI major version %u found, this kit needs %d", api->abi_major, BP_PLUGIN_ABI_MAJOR));
    return;
  }
  rec.pass(format("ABI major version %u", api->abi_major));
  if (api->struct_size < BP_PLUGIN_API_SIZE_1_0) {
    rec.fail(format("struct_size %u is smaller than a version 1.0 table (%zu bytes)", api->struct_size,
                    size_t(BP_PLUGIN_API_SIZE_1_0)));
    return;
  }
  rec.pass(format("struct_size %u covers the 1.0 table", api->struct_size));
  if (api->abi_minor > BP_PLUGIN_ABI_MINOR)
    rec.note(format("built for ABI %u.%u, newer than this kit's %d.%d: fields past 1.%d are not checked",
                    api->abi_major, api->abi_minor, BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR, BP_PLUGIN_ABI_MINOR));

  std::string problem = validate_table(api);
  if (!problem.empty()) {
    rec.fail(problem);
    return;
  }
  rec.pass("name, version, device prefix and every required entry are present");
  rec.info("name", api->name);
  rec.info("version", api->version);
  rec.info("prefix", api->device_prefix);
  rec.info("thread_safe", (api->flags & BP_PLUGIN_THREAD_SAFE) ? "yes" : "no");
  std::string optional;
  if (api->device_properties) optional += " device_properties";
  if (api->copy) optional += " copy";
  if (api->host_address) optional += " host_address";
  rec.info("optional", optional.empty() ? "none" : optional.substr(1));
  const std::string expected_file = std::string("libbackplane-") + api->name + ".so";
  if (file != expected_file)
    rec.note("backend '" + std::string(api->name) + "' is in " + file + "; by convention the file is " + expected_file);

  rec.begin(format("bp_plugin_get_api(%d, 0) from a host of another ABI major", BP_PLUGIN_ABI_MAJOR + 1));
  const bp_plugin_api *other = get(BP_PLUGIN_ABI_MAJOR + 1, 0);
  if (other && other->abi_major == BP_PLUGIN_ABI_MAJOR)
    rec.note(format("answers a host of ABI %d.0 with its %d.x table (allowed: that host checks abi_major)",
                    BP_PLUGIN_ABI_MAJOR + 1, BP_PLUGIN_ABI_MAJOR));
  rec.pass("a host of another ABI major gets an answer, not a crash");
  rec.begin("bp_plugin_get_api again");
  rec.expect(get(BP_PLUGIN_ABI_MAJOR, BP_PLUGIN_ABI_MINOR) == api, "bp_plugin_get_api returns one table",
             "bp_plugin_get_api returned a different table on its second call");

  rec.begin("init(NULL, NULL, 0)");
  bp_status s = api->init(nullptr, nullptr, 0);
  if (s != BP_OK) {
    const char *e = api->last_error();
    rec.fail(std::string("init failed: ") + status_name(s) + ": " + (e && *e ? one_line(e) : "(no message)"));
    return;
  }
  rec.pass("init succeeds");
  rec.begin("last_error()");
  rec.expect(api->last_error() != nullptr, "last_error() returns a string", "last_error() returned NULL");

  rec.begin("device_count");
  int32_t n = -1;
  const char *why = nullptr;
  s = api->device_count(&n, &why);
  if (s != BP_OK) {
    const char *e = api->last_error();
    rec.fail(std::string("device_count failed: ") + status_name(s) + ": " + (e ? one_line(e) : ""));
    return;
  }
  if (n < 0) {
    rec.fail(format("device_count reported %d devices", int(n)));
    return;
  }
  rec.pass(format("device_count: %d", int(n)));
  rec.info("devices", std::to_string(n));
  if (n == 0) {
    std::string reason = why && *why ? one_line(why) : "the plugin gave no reason";
    rec.info("why_none", reason);
    rec.note("no devices: " + reason);
  }
  // What each device is (for --probe; L1 checks the details).
  for (int32_t d = 0; d < n && d < 64; ++d) {
    rec.begin(format("device_info(%d)", int(d)));
    bp_plugin_device_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (api->device_info(d, &info) != BP_OK) continue;
    info.model[sizeof info.model - 1] = 0;
    const char *kind = info.kind == BP_DEVICE_CPU ? "cpu" : info.kind == BP_DEVICE_GPU ? "gpu"
                       : info.kind == BP_DEVICE_ACCELERATOR ? "accelerator" : "unknown kind";
    std::string text = format("%s:%d  %s  %s", api->device_prefix, int(d), kind, info.model);
    if (info.memory_total) text += format("  %.1f GiB", double(info.memory_total) / double(1u << 30));
    rec.info("device", text);
  }
}

void group_arguments(Context &ctx) {
  Recorder &rec = ctx.rec;
  auto plugin = ctx.open_plugin();
  if (!plugin) return;
  Plugin &p = *plugin;
  const bp_plugin_api &api = p.api();
  const int32_t n = p.device_count();

  // An error with a message, never BP_OK.
  auto error = [&](const std::string &what, auto &&call) {
    rec.begin(what);
    bp_status s = call();
    if (s == BP_OK) {
      rec.fail(what + " returned BP_OK; it must be an error");
      return;
    }
    const char *e = api.last_error();
    if (!e || !*e)
      rec.fail(what + " failed with " + status_name(s) + " but last_error() gives no message");
    else
      rec.pass(what + ": " + status_name(s));
  };
  // Anything but a crash.
  auto survives = [&](const std::string &what, auto &&call) {
    rec.begin(what);
    call();
    rec.pass(what + ": no crash");
  };

  int32_t count = 0;
  const char *why = nullptr;
  error("device_count(NULL, &why)", [&] { return api.device_count(nullptr, &why); });
  survives("device_count(&count, NULL)", [&] { return api.device_count(&count, nullptr); });

  bp_plugin_device_info info;
  auto fresh_info = [&] {
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return &info;
  };
  error("device_info(-1, &info)", [&] { return api.device_info(-1, fresh_info()); });
  error(format("device_info(%d, &info) past the last device", int(n)), [&] { return api.device_info(n, fresh_info()); });
  if (n > 0) error("device_info(0, NULL)", [&] { return api.device_info(0, nullptr); });

  if (api.device_properties) {
    bp_property props[4];
    error("device_properties(-1, ...)", [&] { return api.device_properties(-1, props, 4, &count); });
    if (n > 0) {
      error("device_properties(0, props, 4, NULL)", [&] { return api.device_properties(0, props, 4, nullptr); });
      error("device_properties(0, NULL, 4, &count)", [&] { return api.device_properties(0, nullptr, 4, &count); });
      error("device_properties(0, props, -1, &count)", [&] { return api.device_properties(0, props, -1, &count); });
    }
  }

  bp_buffer b = nullptr;
  error("alloc(-1, 16, &buffer)", [&] { return api.alloc(-1, 16, &b); });
  error(format("alloc(%d, 16, &buffer) past the last device", int(n)), [&] { return api.alloc(n, 16, &b); });
  if (n > 0) error("alloc(0, 16, NULL)", [&] { return api.alloc(0, 16, nullptr); });
  survives("free(NULL)", [&] { return api.free(nullptr); });

  unsigned char host[64] = {0};
  error("write(NULL buffer, ...)", [&] { return api.write(nullptr, 0, host, 8); });
  error("read(NULL buffer, ...)", [&] { return api.read(nullptr, 0, host, 8); });
  error(format("synchronize(%d) past the last device", int(n)), [&] { return api.synchronize(n); });
  error("synchronize(-1)", [&] { return api.synchronize(-1); });

  int32_t answer = 0;
  error("supports(-1, add, float32, float32, &answer)",
        [&] { return api.supports(-1, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, &answer); });

  if (n == 0) {
    error("execute(0, ...) with no devices", [&] {
      bp_op_attrs attrs;
      std::memset(&attrs, 0, sizeof attrs);
      attrs.struct_size = sizeof attrs;
      return api.execute(0, BP_OP_FILL, &attrs, nullptr, 0, nullptr);
    });
    return;
  }

  error("supports(0, add, float32, float32, NULL)", [&] { return api.supports(0, BP_OP_ADD, BP_FLOAT32, BP_FLOAT32, nullptr); });
  // Numbers the plugin does not know are questions with the answer no (or an error).
  struct Q {
    int32_t op, dtype, out;
    const char *what;
  };
  const Q questions[] = {
      {0, BP_FLOAT32, BP_FLOAT32, "op 0"},
      {-1, BP_FLOAT32, BP_FLOAT32, "op -1"},
      {BP_OP_LIMIT, BP_FLOAT32, BP_FLOAT32, "op BP_OP_LIMIT"},
      {9999, BP_FLOAT32, BP_FLOAT32, "op 9999"},
      {BP_OP_ADD, 0, 0, "dtype 0"},
      {BP_OP_ADD, 99, 99, "dtype 99"},
      {BP_OP_ADD, BP_FLOAT32, 99, "out_dtype 99"},
      {BP_OP_FILL, -3, -3, "dtype -3"},
  };
  for (const Q &q : questions) {
    std::string what = std::string("supports(0, ") + q.what + ")";
    rec.begin(what);
    answer = 7;
    bp_status s = api.supports(0, q.op, q.dtype, q.out, &answer);
    rec.expect(s != BP_OK || answer == 0, what + ": no", what + format(" answered %d; it must say no (0)", int(answer)));
  }

  // Buffer bounds.
  b = nullptr;
  rec.begin("alloc(0, 64, &buffer)");
  bp_status s = api.alloc(0, 64, &b);
  if (s != BP_OK || !b) {
    rec.fail("alloc(0, 64) failed: " + p.describe(s));
    return;
  }
  bp_buffer b2 = nullptr;
  if (api.alloc(0, 64, &b2) != BP_OK) b2 = nullptr;
  struct Range {
    uint64_t offset, bytes;
  };
  const Range outside[] = {{60, 8}, {65, 0}, {0, 65}, {uint64_t(1) << 63, 8}, {UINT64_MAX, 2}, {8, UINT64_MAX - 4}};
  for (const Range &r : outside) {
    error(format("write(buffer of 64 bytes, offset %llu, %llu bytes)", (unsigned long long)r.offset,
                 (unsigned long long)r.bytes),
          [&] { return api.write(b, r.offset, host, r.bytes); });
    error(format("read(buffer of 64 bytes, offset %llu, %llu bytes)", (unsigned long long)r.offset,
                 (unsigned long long)r.bytes),
          [&] { return api.read(b, r.offset, host, r.bytes); });
  }
  error("write(buffer, 0, NULL, 8)", [&] { return api.write(b, 0, nullptr, 8); });
  error("read(buffer, 0, NULL, 8)", [&] { return api.read(b, 0, nullptr, 8); });
  if (api.copy && b2) {
    error("copy(NULL, 0, buffer, 0, 8)", [&] { return api.copy(nullptr, 0, b2, 0, 8); });
    error("copy(buffer, 0, NULL, 0, 8)", [&] { return api.copy(b, 0, nullptr, 0, 8); });
    error("copy(src, 60, dst, 0, 8) past the source", [&] { return api.copy(b, 60, b2, 0, 8); });
    error("copy(src, 0, dst, 60, 8) past the destination", [&] { return api.copy(b, 0, b2, 60, 8); });
    error("copy(src, 2^63, dst, 0, 8)", [&] { return api.copy(b, uint64_t(1) << 63, b2, 0, 8); });
  }
  if (api.host_address) {
    void *address = nullptr;
    error("host_address(NULL, &address)", [&] { return api.host_address(nullptr, &address); });
    error("host_address(buffer, NULL)", [&] { return api.host_address(b, nullptr); });
  }
  api.free(b);
  if (b2) api.free(b2);

  // execute: a well-formed call of a declared combination, broken one field at
  // a time. None of these may run the operator.
  std::vector<Combo> declared = declared_combos(p, 0);
  if (declared.empty()) {
    rec.note("declares no operators: execute's argument checks use fill float32");
    declared.push_back({BP_OP_FILL, BP_FLOAT32, BP_FLOAT32});
  }
  Combo pick = declared.front();
  for (const Combo &c : declared)
    if (find_op(c.op)->family == Family::create) {
      pick = c;
      break;
    }
  const std::string name = combo_name(pick.op, pick.dtype, pick.out_dtype);
  std::vector<Case> cases = make_small_cases(pick.op, pick.dtype, pick.out_dtype, 1, {{4, 4}});
  if (cases.empty()) return;
  const Case &c = cases.front();
  BoundCase bound(p, 0, c);
  if (!bound.ok()) {
    rec.fail("cannot set up the execute checks: " + bound.failure());
    return;
  }
  std::vector<bp_plugin_tensor> inputs;
  for (const ViewDesc &v : c.inputs) inputs.push_back(bound.tensor(v));
  const bp_plugin_tensor output = bound.tensor(c.output);
  const int32_t n_in = int32_t(inputs.size());
  auto exec = [&](int32_t device, int32_t op, const bp_op_attrs *attrs, const bp_plugin_tensor *in, int32_t k,
                  const bp_plugin_tensor *out) { return api.execute(device, op, attrs, in, k, out); };
  const bp_plugin_tensor *in0 = inputs.empty() ? nullptr : inputs.data();
  const std::string call = "execute(" + name + ")";
  error(call + " on device -1", [&] { return exec(-1, pick.op, &c.attrs, in0, n_in, &output); });
  error(call + format(" on device %d past the last", int(n)), [&] { return exec(n, pick.op, &c.attrs, in0, n_in, &output); });
  error("execute of op 9999", [&] { return exec(0, 9999, &c.attrs, in0, n_in, &output); });
  error("execute of op 0", [&] { return exec(0, 0, &c.attrs, in0, n_in, &output); });
  error(call + " with attrs NULL", [&] { return exec(0, pick.op, nullptr, in0, n_in, &output); });
  error(call + " with output NULL", [&] { return exec(0, pick.op, &c.attrs, in0, n_in, nullptr); });
  auto broken = [&](const std::string &what, auto &&mutate) {
    bp_plugin_tensor out = output;
    mutate(out);
    error(call + " with an output " + what, [&] { return exec(0, pick.op, &c.attrs, in0, n_in, &out); });
  };
  broken("whose buffer is NULL", [](bp_plugin_tensor &t) { t.buffer = nullptr; });
  broken("at byte offset 2^40, past its buffer", [](bp_plugin_tensor &t) { t.offset = uint64_t(1) << 40; });
  broken("larger than its buffer ([4, 2^20])", [](bp_plugin_tensor &t) { t.shape[1] = int64_t(1) << 20; });
  broken("of dtype 99", [](bp_plugin_tensor &t) { t.dtype = 99; });
  broken("of rank 9", [](bp_plugin_tensor &t) { t.rank = BP_MAX_RANK + 1; });
  broken("of rank -1", [](bp_plugin_tensor &t) { t.rank = -1; });
  broken("of extent -4", [](bp_plugin_tensor &t) { t.shape[0] = -4; });
  broken("with stride -1", [](bp_plugin_tensor &t) { t.strides[1] = -1; });
  {
    std::vector<bp_plugin_tensor> more = inputs;
    more.push_back(output);
    error(call + format(" with %d inputs instead of %d", n_in + 1, n_in),
          [&] { return exec(0, pick.op, &c.attrs, more.data(), n_in + 1, &output); });
  }
  if (n_in > 0) error(call + " with inputs NULL", [&] { return exec(0, pick.op, &c.attrs, nullptr, n_in, &output); });

  // A combination it does not declare is BP_ERR_UNSUPPORTED.
  const Combo candidates[] = {{BP_OP_ADD, BP_FLOAT32, BP_FLOAT32}, {BP_OP_FILL, BP_FLOAT32, BP_FLOAT32},
                              {BP_OP_DIV, BP_INT32, BP_INT32},     {BP_OP_ADD, BP_BOOL, BP_BOOL},
                              {BP_OP_EXP, BP_INT64, BP_INT64},     {BP_OP_COPY, BP_FLOAT32, BP_INT32}};
  for (const Combo &u : candidates) {
    if (p.declares(0, u.op, u.dtype, u.out_dtype)) continue;
    const std::string uname = combo_name(u.op, u.dtype, u.out_dtype);
    std::vector<Case> ucases = make_small_cases(u.op, u.dtype, u.out_dtype, 2, {{3}});
    BoundCase ub(p, 0, ucases.front());
    if (!ub.ok()) break;
    rec.begin("execute of " + uname + ", which it does not declare");
    bp_status us = ub.execute();
    rec.expect(us == BP_ERR_UNSUPPORTED, "execute of undeclared " + uname + ": BP_ERR_UNSUPPORTED",
               "says no to " + uname + " but execute returned " + std::string(status_name(us)) +
                   " instead of BP_ERR_UNSUPPORTED");
    break;
  }
}

}  // namespace bpcheck
