// Configuration: defaults, the documented file, the TOML schema and its
// errors (with positions), and the environment overrides.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>

#include <sys/stat.h>

#include "config/config.hpp"

namespace fs = std::filesystem;
using namespace bp::config;

namespace {

ConfigError error_of(std::string_view toml) {
  try {
    load_string(toml, "dir/t.toml");
  } catch (const ConfigError &e) {
    return e;
  }
  throw std::runtime_error("expected a ConfigError for:\n" + std::string(toml));
}

// What the ConfigError of a TOML text must say: its line and column (0: not
// checked), its key, its reason and its whole message (nullptr: not checked).
struct ExpectedError {
  const char *toml;
  int line, column;
  const char *key, *reason, *what = nullptr;
};

void check_errors(std::initializer_list<ExpectedError> cases) {
  for (const ExpectedError &x : cases) {
    INFO(x.toml);
    const ConfigError e = error_of(x.toml);
    if (x.line) CHECK(e.line() == x.line);
    if (x.column) CHECK(e.column() == x.column);
    if (x.key) CHECK(e.key() == x.key);
    if (x.reason) CHECK(e.reason() == x.reason);
    if (x.what) CHECK(std::string(e.what()) == x.what);
  }
}

// apply_environment with `vars` standing in for the process environment.
void apply(Config &c, const std::map<std::string, std::string> &vars) {
  apply_environment(c, [&](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

ConfigError env_error_of(const std::map<std::string, std::string> &vars, Config &c) {
  try {
    apply(c, vars);
  } catch (const ConfigError &e) {
    return e;
  }
  throw std::runtime_error("expected a ConfigError from the environment");
}

const Entry &entry(const Config &c, const std::string &key) {
  auto it = std::find_if(c.entries.begin(), c.entries.end(),
                         [&](const Entry &e) { return e.key == key; });
  if (it == c.entries.end()) throw std::runtime_error("no entry " + key);
  return *it;
}

// Each key's entry in c has this value and this origin (nullptr: not checked).
struct ExpectedEntry {
  const char *key, *value, *origin;
};

void check_entries(const Config &c, std::initializer_list<ExpectedEntry> expected) {
  for (const ExpectedEntry &x : expected) {
    INFO(x.key);
    if (x.value) CHECK(entry(c, x.key).value == x.value);
    if (x.origin) CHECK(entry(c, x.key).origin == x.origin);
  }
}

// Everything but the origins.
void require_same_settings(const Config &a, const Config &b) {
  CHECK(a.default_device == b.default_device);
  CHECK(a.fallback == b.fallback);
  CHECK(a.accelerator_kinds == b.accelerator_kinds);
  CHECK(a.plugin_paths == b.plugin_paths);
  CHECK(a.plugins_disabled == b.plugins_disabled);
  CHECK(a.plugins_required == b.plugins_required);
  CHECK(a.probe_in_subprocess == b.probe_in_subprocess);
  CHECK(a.replace_builtin == b.replace_builtin);
  CHECK(a.host_fallback == b.host_fallback);
  CHECK(a.trace == b.trace);
  CHECK(a.fusion == b.fusion);
  CHECK(a.backend_options == b.backend_options);
  REQUIRE(a.entries.size() == b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    CHECK(a.entries[i].key == b.entries[i].key);
    CHECK(a.entries[i].value == b.entries[i].value);
  }
}

// A fresh directory under the system's temporary one.
fs::path temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "bp-config-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

}  // namespace

TEST_CASE("defaults") {
  Config c = defaults();
  CHECK(c.default_device == "cpu");
  CHECK(c.fallback == std::vector<std::string>{"cuda", "opencl", "cpu"});
  CHECK(c.accelerator_kinds == std::vector<std::string>{"gpu", "accelerator"});
  CHECK(c.plugin_paths.empty());
  CHECK(c.plugins_disabled.empty());
  CHECK(c.plugins_required.empty());
  CHECK(c.probe_in_subprocess.empty());
  CHECK_FALSE(c.host_fallback);
  CHECK_FALSE(c.trace);
  CHECK(c.backend_options.at("cpu-openblas").at("threads") == "0");
  CHECK(c.backend_options.at("opencl").at("platform") == "");
  CHECK(c.backend_options.at("opencl").at("device_type") == "all");
  CHECK(c.backend_options.at("opencl").at("fp64") == "auto");
  CHECK(c.backend_options.at("cuda").at("allow_tf32") == "false");

  std::vector<std::string> keys;
  for (const Entry &e : c.entries) {
    keys.push_back(e.key);
    CHECK(e.origin == "default");
  }
  CHECK(keys == std::vector<std::string>{
                    "backend.cpu-openblas.threads", "backend.cuda.allow_tf32", "backend.opencl.device_type",
                    "backend.opencl.fp64", "backend.opencl.kernel_cache", "backend.opencl.platform", "devices.accelerator_kinds", "devices.default",
                    "devices.fallback", "dispatch.fusion", "dispatch.host_fallback", "dispatch.trace",
                    "plugins.disabled", "plugins.paths", "plugins.required"});
  check_entries(c, {
      {"devices.default", "\"cpu\"", nullptr},
      {"devices.fallback", "[\"cuda\", \"opencl\", \"cpu\"]", nullptr},
      {"plugins.paths", "[]", nullptr},
      {"dispatch.trace", "false", nullptr},
      {"backend.cpu-openblas.threads", "0", nullptr},
      {"backend.opencl.platform", "\"\"", nullptr},
  });
}

TEST_CASE("config/backplane.toml sets every key to its default") {
  const std::string path = BP_TEST_SOURCE_DIR "/config/backplane.toml";
  Config c = load_file(path);
  require_same_settings(c, defaults());
  // Every key is written out in the documented file, none left implicit.
  for (const Entry &e : c.entries) {
    INFO(e.key);
    CHECK(e.origin.rfind(path + ":", 0) == 0);
  }
}

TEST_CASE("tests/backplane-test.toml loads") {
  const std::string path = BP_TEST_SOURCE_DIR "/tests/backplane-test.toml";
  Config c = load_file(path);
  CHECK(c.default_device == "auto");
  CHECK(c.fallback == std::vector<std::string>{"cuda", "opencl", "cpu", "reference"});
  CHECK(c.accelerator_kinds == std::vector<std::string>{"gpu", "accelerator", "opencl:cpu"});
  CHECK(c.backend_options.at("cpu-openblas").at("threads") == "1");
  CHECK(entry(c, "devices.fallback").origin == path + ":4:1");
  CHECK(entry(c, "plugins.paths").origin == "default");
}

TEST_CASE("[plugins.<name>] replace_builtin names the built-in plugins another build stands in for") {
  CHECK(defaults().replace_builtin.empty());
  Config c = load_string("[plugins.opencl]\nreplace_builtin = true\n[plugins.cuda]\nreplace_builtin = false\n", "r.toml");
  CHECK(c.replace_builtin == std::map<std::string, bool>{{"opencl", true}, {"cuda", false}});
  CHECK(entry(c, "plugins.opencl.replace_builtin").origin == "r.toml:2:1");
  CHECK(entry(c, "plugins.opencl.replace_builtin").value == "true");
  ConfigError e = error_of("[plugins.opencl]\nreplace_builtin = \"yes\"\n");
  CHECK(e.key() == "plugins.opencl.replace_builtin");
}

TEST_CASE("every key is parsed, with its position as origin") {
  Config c = load_string(R"([devices]
default = "opencl:1"
fallback = ["opencl", "cpu"]
accelerator_kinds = ["gpu", "opencl:cpu"]

[plugins]
paths = ["/opt/bp/plugins"]
disabled = ["cuda"]
required = ["cpu-openblas"]

[plugins.cuda]
probe_in_subprocess = true

[dispatch]
host_fallback = true
trace = true

[backend.cpu-openblas]
threads = 4

[backend.reference]
mode = "strict"
scale = 0.5
verbose = false
"weird key" = 1.0
)",
                         "all.toml");
  CHECK(c.default_device == "opencl:1");
  CHECK(c.fallback == std::vector<std::string>{"opencl", "cpu"});
  CHECK(c.accelerator_kinds == std::vector<std::string>{"gpu", "opencl:cpu"});
  CHECK(c.plugin_paths == std::vector<std::string>{"/opt/bp/plugins"});
  CHECK(c.plugins_disabled == std::vector<std::string>{"cuda"});
  CHECK(c.plugins_required == std::vector<std::string>{"cpu-openblas"});
  CHECK(c.probe_in_subprocess == std::map<std::string, bool>{{"cuda", true}});
  CHECK(c.host_fallback);
  CHECK(c.trace);
  CHECK(c.backend_options.at("cpu-openblas") ==
        std::map<std::string, std::string>{{"threads", "4"}});
  CHECK(c.backend_options.at("reference") ==
        std::map<std::string, std::string>{
            {"mode", "strict"}, {"scale", "0.5"}, {"verbose", "false"}, {"weird key", "1.0"}});
  // Options of a backend the file leaves out keep their defaults.
  CHECK(c.backend_options.at("opencl").at("device_type") == "all");
  CHECK(c.backend_options.at("opencl").at("fp64") == "auto");
  CHECK(c.backend_options.at("cuda").at("allow_tf32") == "false");

  check_entries(c, {
      {"devices.default", "\"opencl:1\"", "all.toml:2:1"},
      {"devices.accelerator_kinds", nullptr, "all.toml:4:1"},
      {"plugins.required", "[\"cpu-openblas\"]", nullptr},
      {"plugins.cuda.probe_in_subprocess", "true", "all.toml:12:1"},
      {"dispatch.trace", nullptr, "all.toml:16:1"},
      {"backend.cpu-openblas.threads", "4", "all.toml:19:1"},
      {"backend.reference.mode", "\"strict\"", nullptr},
      {"backend.reference.\"weird key\"", "1.0", nullptr},
      {"backend.opencl.device_type", nullptr, "default"},
  });
}

TEST_CASE("a syntax error gives its line and column") {
  ConfigError e = error_of("[devices]\ndefault = \n");
  CHECK(e.source() == "dir/t.toml");
  CHECK(e.line() == 2);
  CHECK(e.column() == 11);
  CHECK(e.key().empty());
  CHECK(std::string(e.what()).rfind("dir/t.toml:2:11: syntax error: ", 0) == 0);

  e = error_of("[devices]\nfallback = [\"cuda\",\n  \"cpu\"\n");
  CHECK(e.line() == 3);
  CHECK(e.column() == 9);
}

TEST_CASE("an unknown key gives its position, dotted key and the valid keys") {
  check_errors({
      {"[devices]\ndefault = \"cpu\"\nfalback = [\"cpu\"]\n", 3, 1, "devices.falback", nullptr,
       "dir/t.toml:3:1: devices.falback: unknown key; valid keys here: default, fallback, accelerator_kinds"},
      {"\n[devcies]\n", 2, 2, "devcies", "unknown key; valid keys here: devices, plugins, dispatch, backend"},
      {"[dispatch]\ntraces = true\n", 0, 0, "dispatch.traces", "unknown key; valid keys here: fusion, host_fallback, trace"},
      {"[plugins.cuda]\nprobe = true\n", 2, 0, "plugins.cuda.probe", "unknown key; valid keys here: probe_in_subprocess, replace_builtin"},
      {"[plugins]\npath = []\n", 0, 0, "plugins.path", "unknown key; valid keys here: paths, disabled, required, or a table [plugins.<name>]"},
  });
}

TEST_CASE("a wrong type gives the value's position, never a silent default") {
  check_errors({
      {"[devices]\nfallback = 3\n", 2, 12, "devices.fallback", nullptr,
       "dir/t.toml:2:12: devices.fallback: expected an array of strings, found integer"},
      {"[devices]\nfallback = [\"cuda\", 3]\n", 0, 21, nullptr, "expected an array of strings, found integer at index 1"},
      {"[devices]\ndefault = 0\n", 0, 0, nullptr, "expected a string, found integer"},
      {"[dispatch]\ntrace = \"yes\"\n", 2, 9, nullptr, "expected a boolean, found string"},
      {"[plugins.cuda]\nprobe_in_subprocess = 1\n", 0, 0, "plugins.cuda.probe_in_subprocess", "expected a boolean, found integer"},
      {"devices = 1\n", 0, 0, "devices", "expected a table, found integer"},
      {"[backend]\nopencl = \"gpu\"\n", 0, 0, "backend.opencl", "expected a table, found string"},
      {"[backend.opencl]\nplatforms = [\"pocl\"]\n", 2, 13, "backend.opencl.platforms", "expected a string, integer, float or boolean, found array"},
      {"[backend.opencl.sub]\nx = 1\n", 0, 0, "backend.opencl.sub", "expected a string, integer, float or boolean, found table"},
  });
}

TEST_CASE("bad values are rejected at their position") {
  ConfigError e = error_of("[devices]\naccelerator_kinds = [\"gpu\", \"tpu\"]\n");
  CHECK(e.line() == 2);
  CHECK(e.column() == 29);
  CHECK(e.key() == "devices.accelerator_kinds");
  CHECK(e.reason() ==
        "\"tpu\" is not a device kind: expected \"gpu\", \"accelerator\", \"cpu\" or "
        "\"<prefix>:<kind>\"");
  for (const char *kind : {"opencl:tpu", ":cpu", "opencl:", "GPU", "a:b:cpu", ""}) {
    INFO(kind);
    CHECK(error_of(std::string("[devices]\naccelerator_kinds = [\"") + kind + "\"]\n").key() ==
          "devices.accelerator_kinds");
  }
  CHECK(load_string("[devices]\naccelerator_kinds = [\"cpu\", \"opencl:cpu\", \"cuda:gpu\"]", "t")
            .accelerator_kinds.size() == 3);

  e = error_of("[devices]\nfallback = [\"cuda\", \"\", \"cpu\"]\n");
  CHECK(e.column() == 21);
  CHECK(e.reason() == "empty name");
  e = error_of("[devices]\nfallback = [\"cuda\", \"cpu\", \"cuda\"]\n");
  CHECK(e.column() == 28);
  CHECK(e.reason() == "\"cuda\" appears twice");
  CHECK(error_of("[plugins]\ndisabled = [\"open cl\"]\n").key() == "plugins.disabled");
  CHECK(error_of("[plugins]\npaths = [\"\"]\n").reason() == "empty path");
  CHECK(error_of("[plugins.\"a.b\"]\nprobe_in_subprocess = true\n").key() == "plugins.\"a.b\"");

  for (const char *good : {"auto", "cpu", "gpu", "opencl", "cpu:0", "gpu:1", "opencl:12",
                           "cpu-openblas:0", "cuda:2147483647"}) {
    INFO(good);
    CHECK(load_string(std::string("[devices]\ndefault = \"") + good + "\"\n", "t").default_device ==
          good);
  }
  for (const char *bad : {"", "default", "auto:1", "cpu:", "cpu:-1", "cpu:+1", "cpu: 1", ":0",
                          "1cpu", "cpu:0:1", "cuda:2147483648", "open cl", "gpu(1)"}) {
    INFO(bad);
    e = error_of(std::string("[devices]\ndefault = \"") + bad + "\"\n");
    CHECK(e.key() == "devices.default");
    CHECK(e.line() == 2);
    CHECK(e.column() == 11);
  }
}

TEST_CASE("relative plugin paths resolve against the file's directory") {
  Config c = load_string("[plugins]\npaths = [\"plugins\", \"../lib/bp\", \"/abs/dir\"]\n",
                         "/etc/backplane/site.toml");
  CHECK(c.plugin_paths ==
        std::vector<std::string>{"/etc/backplane/plugins", "/etc/lib/bp", "/abs/dir"});
  CHECK(entry(c, "plugins.paths").value ==
        "[\"/etc/backplane/plugins\", \"/etc/lib/bp\", \"/abs/dir\"]");

  // Without a directory in the name: the current one, made absolute.
  c = load_string("[plugins]\npaths = [\"p\"]\n", "<string>");
  CHECK(c.plugin_paths == std::vector<std::string>{(fs::current_path() / "p").string()});

  fs::path dir = temp_dir();
  std::ofstream(dir / "bp.toml") << "[plugins]\npaths = [\"./more\"]\n";
  c = load_file((dir / "bp.toml").string());
  CHECK(c.plugin_paths == std::vector<std::string>{(dir / "more").string()});
  fs::remove_all(dir);
}

TEST_CASE("an unreadable file names its path and the system's reason") {
  fs::path dir = temp_dir();
  const std::string missing = (dir / "missing.toml").string();
  try {
    load_file(missing);
    FAIL("no error for a missing file");
  } catch (const ConfigError &e) {
    CHECK(e.source() == missing);
    CHECK(e.line() == 0);
    CHECK(std::string(e.what()) == missing + ": cannot open: " + std::strerror(ENOENT));
  }
  try {
    load_file(dir.string());
    FAIL("no error for a directory");
  } catch (const ConfigError &e) {
    CHECK(std::string(e.what()) == dir.string() + ": is a directory, not a file");
  }
  fs::remove_all(dir);
}

TEST_CASE("only regular files are read: a FIFO or /dev/zero is refused at once") {
  fs::path dir = temp_dir();
  const std::string fifo = (dir / "fifo.toml").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string &path : {fifo, std::string("/dev/zero")}) {
    try {
      load_file(path);
      FAIL("no error for " + path);
    } catch (const ConfigError &e) {
      CHECK(std::string(e.what()) == path + ": is not a regular file");
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("the input is bounded: size, key parts and nesting, each at its position") {
  std::string deep_key = "a";
  for (int i = 0; i < 100000; ++i) deep_key += ".a";
  ConfigError e = error_of("[devices]\n" + deep_key + " = 1\n");
  CHECK(e.line() == 2);
  CHECK(e.column() == 64);
  CHECK(e.reason() == "a key with more than 32 parts");
  e = error_of("[" + deep_key + "]\n");
  CHECK(e.line() == 1);
  CHECK(e.reason() == "a key with more than 32 parts");
  e = error_of("x = " + std::string(100000, '['));
  CHECK(e.column() == 37);
  CHECK(e.reason() == "arrays, tables or inline tables nested more than 32 deep");
  e = error_of("x = " + std::string(100000, '{'));
  CHECK(e.reason() == "arrays, tables or inline tables nested more than 32 deep");
  e = error_of(std::string(2 << 20, ' '));
  CHECK(e.reason() == "the file is 2097152 bytes; a configuration may have at most 1048576");
  // Dots and brackets inside strings and comments are text, not structure.
  std::string dots(200, '.');
  Config c = load_string("# " + dots + std::string(100, '[') + "\n[devices]\ndefault = \"cpu\" # " + dots +
                             "\n[plugins]\npaths = [\"/x" + dots + "\", \'\'\'/y" + dots + "\'\'\']\n",
                         "t.toml");
  CHECK(c.plugin_paths == std::vector<std::string>{"/x" + dots, "/y" + dots});
}

TEST_CASE("a message shows at most 64 bytes of a value or key, and a source up to PATH_MAX") {
  const std::string big(100000, 'q');
  for (const std::string &value : {"default = \"" + big + ":x\"", "fallback = [\"" + big + "!\"]",
                                   "fallback = [\"" + big + "\", \"" + big + "\"]",
                                   "accelerator_kinds = [\"" + big + "\"]"}) {
    INFO(value.substr(0, 30));
    ConfigError e = error_of("[devices]\n" + value + "\n");
    CHECK(std::string(e.what()).size() < 400);
    CHECK(e.reason().rfind("\"" + std::string(64, 'q') + "... (10000", 0) == 0);
  }
  ConfigError e = error_of("[devices]\n" + big + " = 1\n");
  CHECK(e.key() == "devices." + big);  // the field keeps it whole
  const std::string key_shown = "devices." + std::string(56, 'q') + "... (100008 bytes)";
  CHECK(std::string(e.what()).rfind("dir/t.toml:2:1: " + key_shown + ": unknown key", 0) == 0);
  Config c = defaults();
  for (const char *var : {"BACKPLANE_TRACE", "BACKPLANE_FALLBACK"}) {
    INFO(var);
    e = env_error_of({{var, big + "!"}}, c);
    CHECK(std::string(e.what()).size() < 400);
  }
  // Cut before a character, never inside one: "a" then 2-byte characters.
  std::string accents = "a";
  for (int i = 0; i < 100; ++i) accents += "\xc3\xa9";
  e = error_of("[devices]\nfallback = [\"" + accents + "!\"]\n");
  std::string first = "a";
  for (int i = 0; i < 31; ++i) first += "\xc3\xa9";
  CHECK(e.reason().rfind("\"" + first + "... (202 bytes)\" is not a name", 0) == 0);
  // A path is shown whole up to PATH_MAX, the longest the system opens.
  try {
    load_string("x", "/" + big);
    FAIL("no error");
  } catch (const ConfigError &error) {
    CHECK(error.source() == "/" + big);
    CHECK(std::string(error.what()).rfind("/" + std::string(4095, 'q') + "... (100001 bytes):1:", 0) == 0);
  }
}

TEST_CASE("environment variables override single keys and say so") {
  Config c = load_string("[devices]\ndefault = \"cpu\"\n[dispatch]\ntrace = true\n", "f.toml");
  apply(c, {{"BACKPLANE_DEFAULT_DEVICE", "opencl:1"},
            {"BACKPLANE_FALLBACK", "opencl, cpu"},
            {"BACKPLANE_ACCELERATOR_KINDS", "gpu,opencl:cpu"},
            {"BACKPLANE_DISABLED_PLUGINS", "cuda"},
            {"BACKPLANE_HOST_FALLBACK", "TRUE"},
            {"BACKPLANE_TRACE", "0"},
            {"BACKPLANE_FUSION", "false"}});
  CHECK(c.default_device == "opencl:1");
  CHECK(c.fallback == std::vector<std::string>{"opencl", "cpu"});
  CHECK(c.accelerator_kinds == std::vector<std::string>{"gpu", "opencl:cpu"});
  CHECK(c.plugins_disabled == std::vector<std::string>{"cuda"});
  CHECK(c.host_fallback);
  CHECK_FALSE(c.trace);
  check_entries(c, {
      {"devices.default", "\"opencl:1\"", "env BACKPLANE_DEFAULT_DEVICE"},
      {"devices.fallback", "[\"opencl\", \"cpu\"]", "env BACKPLANE_FALLBACK"},
      {"devices.accelerator_kinds", nullptr, "env BACKPLANE_ACCELERATOR_KINDS"},
      {"plugins.disabled", nullptr, "env BACKPLANE_DISABLED_PLUGINS"},
      {"dispatch.host_fallback", nullptr, "env BACKPLANE_HOST_FALLBACK"},
      {"dispatch.trace", "false", "env BACKPLANE_TRACE"},
  });
  CHECK_FALSE(c.fusion);
  CHECK(entry(c, "dispatch.fusion").origin == "env BACKPLANE_FUSION");
  CHECK(entry(c, "plugins.required").origin == "default");

  // Empty means unset: nothing changes.
  Config d = defaults();
  apply(d, {{"BACKPLANE_TRACE", ""}, {"BACKPLANE_FALLBACK", ""}});
  require_same_settings(d, defaults());
  CHECK(entry(d, "dispatch.trace").origin == "default");
}

TEST_CASE("BACKPLANE_PLUGIN_PATH appends after the file's directories") {
  Config c = load_string("[plugins]\npaths = [\"/etc/bp\"]\n", "/f.toml");
  apply(c, {{"BACKPLANE_PLUGIN_PATH", "/a::/b/../c:rel:"}});
  CHECK(c.plugin_paths ==
        std::vector<std::string>{"/etc/bp", "/a", "/c", (fs::current_path() / "rel").string()});
  CHECK(entry(c, "plugins.paths").origin == "/f.toml:2:1 + env BACKPLANE_PLUGIN_PATH");

  Config d = defaults();
  apply(d, {{"BACKPLANE_PLUGIN_PATH", "/a"}});
  CHECK(d.plugin_paths == std::vector<std::string>{"/a"});
  CHECK(entry(d, "plugins.paths").origin == "env BACKPLANE_PLUGIN_PATH");
  CHECK(entry(d, "plugins.paths").value == "[\"/a\"]");
}

TEST_CASE("a malformed environment value names the variable and changes nothing") {
  struct Case {
    const char *var;
    const char *value;
    const char *key;
    const char *reason;
  };
  for (const Case &k : {
           Case{"BACKPLANE_DEFAULT_DEVICE", "cpu:x", "devices.default", nullptr},
           Case{"BACKPLANE_FALLBACK", "cuda,,cpu", "devices.fallback",
                "empty name (item 2 of \"cuda,,cpu\")"},
           Case{"BACKPLANE_FALLBACK", "cpu,cpu", "devices.fallback", nullptr},
           Case{"BACKPLANE_ACCELERATOR_KINDS", "gpu,tpu", "devices.accelerator_kinds", nullptr},
           Case{"BACKPLANE_DISABLED_PLUGINS", "cuda,", "plugins.disabled", nullptr},
           Case{"BACKPLANE_TRACE", "yes", "dispatch.trace",
                "expected 1, 0, true or false, found \"yes\""},
           Case{"BACKPLANE_HOST_FALLBACK", "2", "dispatch.host_fallback", nullptr},
       }) {
    INFO(k.var << "=" << k.value);
    Config c = defaults();
    // Valid variables applied before the bad one must not stick either.
    std::map<std::string, std::string> vars{{k.var, k.value}};
    vars.emplace("BACKPLANE_DEFAULT_DEVICE", "cpu");
    vars.emplace("BACKPLANE_PLUGIN_PATH", "/p");
    ConfigError e = env_error_of(vars, c);
    CHECK(e.source() == std::string("env ") + k.var);
    CHECK(e.key() == k.key);
    CHECK(e.line() == 0);
    CHECK(std::string(e.what()).rfind("env " + std::string(k.var) + ": " + k.key + ": ", 0) == 0);
    if (k.reason) {
      CHECK(e.reason() == k.reason);
    }
    require_same_settings(c, defaults());
  }
}

TEST_CASE("entries are sorted and tell where each value came from") {
  Config c =
      load_string("[dispatch]\ntrace = true\n\n[backend.reference]\nmode = \"x\"\n", "cfg.toml");
  apply(c, {{"BACKPLANE_HOST_FALLBACK", "1"}});
  CHECK(std::is_sorted(c.entries.begin(), c.entries.end(),
                       [](const Entry &a, const Entry &b) { return a.key < b.key; }));
  CHECK(std::adjacent_find(c.entries.begin(), c.entries.end(), [](const Entry &a, const Entry &b) {
          return a.key == b.key;
        }) == c.entries.end());
  CHECK(c.entries.size() == defaults().entries.size() + 1);
  check_entries(c, {
      {"dispatch.trace", nullptr, "cfg.toml:2:1"},
      {"backend.reference.mode", nullptr, "cfg.toml:5:1"},
      {"dispatch.host_fallback", "true", "env BACKPLANE_HOST_FALLBACK"},
      {"devices.default", nullptr, "default"},
  });
}
