// Plugins dropped into a plugin directory that try to take the host down or
// to push a built-in backend aside (tests/test-plugins/hostile and files made
// here): each ends in a rejection naming the file or in an error, and every
// other backend keeps working, whatever the order of calls.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>

#include "backplane/plugin.h"
#include "runtime_fixture.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kHostile = BP_TEST_FAKE_PLUGIN_DIR "/hostile";

// The runtime started with the hostile plugins; their device `name`,
// REQUIREd to be there.
bp_device hostile_device(const char *name) {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  bp_device d = -1;
  REQUIRE(bp_device_get(name, &d) == BP_OK);
  return d;
}

std::map<std::string, bp_plugin_report> reports_by_file() {
  std::map<std::string, bp_plugin_report> out;
  for (const bp_plugin_report &r : bp_test::plugin_reports(1)) out[fs::path(r.path).filename().string()] = r;
  return out;
}

// The host backends still work after whatever a hostile plugin did.
void host_backends_work() {
  for (const char *name : {"cpu:0", "reference:0"}) {
    INFO(name);
    CHECK((bp::ones({3}, bp::f32, bp::Device(name)) * 2.0).to_vector<float>() == std::vector<float>{2, 2, 2});
  }
}

fs::path scratch_dir(const std::string &name) {
  fs::path dir = fs::temp_directory_path() / ("bp-hostile-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("a FIFO and a truncated ELF file in a plugin directory are refused without being mapped") {
  fs::path dir = scratch_dir("files");
  REQUIRE(mkfifo((dir / "libbackplane-fifo.so").c_str(), 0600) == 0);
  // The reference plugin cut inside its code segment (which starts at the
  // second page): dlopen would map bytes past the end of the file.
  const fs::path whole = fs::path(BP_TEST_PLUGIN_DIR) / "libbackplane-reference.so";
  std::ifstream in(whole, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 6000);
  std::ofstream(dir / "libbackplane-truncated.so", std::ios::binary).write(bytes.data(), 6000);
  fs::create_directory(dir / "libbackplane-directory.so");
  bp_test::start(bp_test::with_plugins_in(dir.string()));
  auto r = reports_by_file();
  CHECK(r["libbackplane-fifo.so"].loaded == 0);
  CHECK(std::string(r["libbackplane-fifo.so"].reason) == "only regular files are loaded; this is a FIFO");
  CHECK(r["libbackplane-truncated.so"].loaded == 0);
  CHECK(std::string(r["libbackplane-truncated.so"].reason).rfind("truncated: ", 0) == 0);
  CHECK(std::string(r["libbackplane-directory.so"].reason) == "only regular files are loaded; this is a directory");
  host_backends_work();
  fs::remove_all(dir);
}

TEST_CASE("a table that fails validation is not read any further") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  auto r = reports_by_file();
  CHECK(r["libbackplane-garbage-table.so"].loaded == 0);
  CHECK(std::string(r["libbackplane-garbage-table.so"].name) == "garbage-table");  // from the file, not the table
  CHECK(std::string(r["libbackplane-garbage-table.so"].reason).find("struct_size 8") != std::string::npos);
  host_backends_work();
}

TEST_CASE("a plugin's error strings are copied with a bound: unterminated or 64 MiB") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  bp_device d = -1;
  REQUIRE(bp_device_get("unterminated:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  std::string unterminated = bp_last_error();
  CHECK(unterminated.find(std::string(100, 'x') + " [... unreadable]") != std::string::npos);
  CHECK(unterminated.size() < 6000);
  REQUIRE(bp_device_get("huge:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  std::string huge = bp_last_error();
  CHECK(huge.find(std::string(4096, 'y') + " [... truncated]") != std::string::npos);
  CHECK(huge.size() < 12000);
  host_backends_work();
}

namespace {

// Each device's plugin answers `call` with its raw code, a status outside the
// enum: the call fails with BP_ERR_BACKEND, then `check` reads the message.
void on_status_outside_the_enum(
    std::initializer_list<std::pair<const char *, const char *>> devices,
    const std::function<bp_status(bp_device d, const int64_t *shape, bp_tensor *t)> &call,
    const std::function<void(const std::string &message, const std::string &device, const std::string &code)> &check) {
  for (auto [device, code] : devices) {
    INFO(device);
    const bp_device d = hostile_device(device);
    const int64_t shape[] = {4};
    bp_tensor t = 0;
    CHECK(call(d, shape, &t) == BP_ERR_BACKEND);
    CHECK(bp_last_error_status() == BP_ERR_BACKEND);
    check(bp_last_error(), device, code);
  }
  host_backends_work();
}

}  // namespace

TEST_CASE("a plugin status outside the enum reaches the caller as BP_ERR_BACKEND with the raw code") {
  on_status_outside_the_enum(
      {{"oddstatus:0", "12345"}, {"negstatus:0", "-7"}},
      [](bp_device d, const int64_t *shape, bp_tensor *t) { return bp_zeros(d, BP_FLOAT32, 1, shape, t); },
      [](const std::string &message, const std::string &, const std::string &code) {
        CHECK(message.find("BP_ERR_BACKEND, its code " + code + " is no bp_status") != std::string::npos);
      });
}

TEST_CASE("an unterminated last_error after a failed execute is copied with a bound") {
  const bp_device d = hostile_device("untermexec:0");
  const int64_t shape[] = {4};
  bp_tensor t = 0;
  CHECK(bp_full(d, BP_FLOAT32, 1, shape, 1.5, &t) == BP_ERR_BACKEND);
  const std::string message = bp_last_error();
  CHECK(message.find("backend unterminated-execute-error failed (BP_ERR_BACKEND): " + std::string(100, 'x') +
                     " [... unreadable]") != std::string::npos);
  CHECK(message.size() < 6000);
  host_backends_work();
}

TEST_CASE("a status outside the enum from execute reaches the caller as BP_ERR_BACKEND with the raw code") {
  on_status_outside_the_enum(
      {{"execodd:0", "12345"}, {"execneg:0", "-7"}},
      [](bp_device d, const int64_t *shape, bp_tensor *t) { return bp_full(d, BP_FLOAT32, 1, shape, 2.0, t); },
      [](const std::string &message, const std::string &device, const std::string &code) {
        CHECK(message.find("failed (BP_ERR_BACKEND, its code " + code +
                           " is no bp_status): execute: a status from nowhere") != std::string::npos);
        CHECK(message.find("on " + device + ": backend execute-") != std::string::npos);
        // And through the C++ binding, whose exception carries the status.
        try {
          bp::full({4}, 2.0, bp::f32, bp::Device(device));
          FAIL("no error");
        } catch (const bp::Error &e) {
          CHECK(e.status() == BP_ERR_BACKEND);
        }
      });
}

TEST_CASE("a table whose name or version has no NUL before an unreadable page is refused, in the host itself") {
  // No probe process: the host's own loader reads the table (as for a
  // built-in plugin).
  bp_test::start(bp_test::with_plugins_in(kHostile) +
                 "[plugins.unterminated-name]\nprobe_in_subprocess = false\n"
                 "[plugins.unterminated-version]\nprobe_in_subprocess = false\n");
  auto r = reports_by_file();
  CHECK(r["libbackplane-unterminated-name.so"].loaded == 0);
  CHECK(std::string(r["libbackplane-unterminated-name.so"].name) == "unterminated-name");  // the file's
  // Read no further than one byte past the longest name.
  CHECK(std::string(r["libbackplane-unterminated-name.so"].reason) ==
        "backend name \"" + std::string(64, 'x') + "...\" is not made of [a-z0-9_-], 1 to 63 characters");
  CHECK(r["libbackplane-unterminated-version.so"].loaded == 0);
  CHECK(std::string(r["libbackplane-unterminated-version.so"].reason) ==
        "version points to memory this process cannot read (after 100 bytes and no NUL)");
  host_backends_work();
}

TEST_CASE("a device_info that writes past the struct it is given fails the backend's start, naming it") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  bp_device d = -1;
  REQUIRE(bp_device_get("overrun:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  const std::string why = "backend info-overrun: device_info wrote past the " +
                          std::to_string(sizeof(bp_plugin_device_info)) +
                          " bytes it was given (bytes 0 to 63 after them changed)";
  CHECK(std::string(bp_last_error()).find(why) != std::string::npos);
  host_backends_work();
}

TEST_CASE("bp_device_info_get on a plugin whose device_info writes past the struct fails with BP_ERR_PLUGIN") {
  // The plugin describes its device properly once (at enumeration), then
  // writes 64 bytes past the struct on every later call.
  const bp_device d = hostile_device("overrunlater:0");
  for (int call = 0; call < 2; ++call) {
    bp_device_info info{};
    info.struct_size = sizeof info;
    CHECK(bp_device_info_get(d, &info) == BP_ERR_PLUGIN);
    CHECK(std::string(bp_last_error()).find("backend info-overrun-later: device_info wrote past the " +
                                            std::to_string(sizeof(bp_plugin_device_info)) + " bytes it was given") !=
          std::string::npos);
  }
  host_backends_work();
}

TEST_CASE("a device_properties that writes past the capacity it is given fails with BP_ERR_PLUGIN") {
  const bp_device d = hostile_device("propsoverrun:0");
  // The caller's array has a fifth element the plugin is not told about.
  bp_property props[5] = {};
  std::snprintf(props[4].key, sizeof props[4].key, "mine");
  int32_t count = -1;
  CHECK(bp_device_properties(d, props, 4, &count) == BP_ERR_PLUGIN);
  CHECK(std::string(bp_last_error()).find("backend properties-overrun: device_properties wrote past the " +
                                          std::to_string(4 * sizeof(bp_property)) + " bytes it was given") !=
        std::string::npos);
  CHECK(std::string(props[4].key) == "mine");
  host_backends_work();
}

TEST_CASE("a plugin reporting 2000 devices is refused whole and leaves every other backend its devices") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  bp_device d = -1;
  REQUIRE(bp_device_get("many:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(std::string(bp_last_error()).find("reports 2000 devices; a backend may have at most 256") != std::string::npos);
  int32_t count = 0;
  bp_device ids[64];
  REQUIRE(bp_devices(ids, 64, &count) == BP_OK);
  for (int32_t i = 0; i < count && i < 64; ++i)
    CHECK(std::string(bp_device_name(ids[i])).rfind("many:", 0) != 0);
  host_backends_work();
}

TEST_CASE("a host address a plugin invents is checked before anything is written through it") {
  const bp_device d = hostile_device("badhost:0");
  const int64_t shape[] = {4};
  bp_tensor t = 0;
  CHECK(bp_zeros(d, BP_FLOAT32, 1, shape, &t) == BP_ERR_BACKEND);
  CHECK(std::string(bp_last_error()).find("host_address gave 0x1000") != std::string::npos);
  // The copy that used to write through 0x1000.
  bp::Tensor src = bp::ones({4}, bp::f32, bp::cpu());
  bp_tensor out = 0;
  CHECK(bp_copy_to(src.handle(), d, &out) == BP_ERR_BACKEND);
  host_backends_work();
}

// Both hostile plugins that claim the cpu backend's name or prefix are
// rejected, each saying that the built-in plugin takes precedence.
static void impostors_rejected() {
  int32_t rejected = 0;
  for (const bp_plugin_report &r : bp_test::plugin_reports(1)) {
    const std::string path = r.path, file = fs::path(path).filename().string();
    if (path.find("/hostile/") != std::string::npos &&
        (file == "libbackplane-cpu-openblas.so" || file == "libbackplane-takes-cpu.so")) {
      INFO(file);
      CHECK(r.loaded == 0);
      CHECK(std::string(r.reason).find("built-in plugins take precedence") != std::string::npos);
      ++rejected;
    }
  }
  CHECK(rejected == 2);
}

TEST_CASE("a plugin outside the built-in directory never displaces a built-in backend (devices first)") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  bp::Tensor t = bp::ones({2}, bp::f32, bp::cpu());
  bp_backend_counters c{};
  c.struct_size = sizeof c;
  REQUIRE(bp_backend_counters_get("cpu-openblas", &c) == BP_OK);
  CHECK(c.allocations >= 1);
  CHECK(std::string(bp::cpu().name()) == "cpu:0");
  impostors_rejected();
  host_backends_work();
}

TEST_CASE("a plugin outside the built-in directory never displaces a built-in backend (reports first)") {
  bp_test::start(bp_test::with_plugins_in(kHostile));
  impostors_rejected();
  bp_device d = -1;
  CHECK(bp_device_get("impostor:0", &d) == BP_ERR_UNKNOWN_DEVICE);
  CHECK(std::string(bp_last_error()).find("was rejected: duplicate backend name 'cpu-openblas'") != std::string::npos);
  host_backends_work();
}

TEST_CASE("a plugin from outside the built-in directory that crashes, exits or hangs while starting is rejected") {
  fs::path cache = scratch_dir("cache");
  setenv("BACKPLANE_CACHE_DIR", cache.c_str(), 1);
  bp_test::start(bp_test::with_plugins_in(BP_TEST_FAKE_PLUGIN_DIR "/hostile-start"));
  auto r = reports_by_file();
  const std::map<std::string, std::string> expected = {
      {"libbackplane-init-aborts.so", "crashed while loading or starting in a probe process (signal 6, SIGABRT)"},
      {"libbackplane-enumeration-crashes.so", "crashed while loading or starting in a probe process (signal 11, SIGSEGV)"},
      {"libbackplane-init-exits.so", "ended the probe process (exit status 0) while loading or starting"},
      {"libbackplane-init-hangs.so", "did not finish loading and starting within 5 s in a probe process"},
  };
  for (const auto &[file, why] : expected) {
    INFO(file);
    CHECK(r[file].loaded == 0);
    CHECK(std::string(r[file].reason).find(why) != std::string::npos);
  }
  CHECK(r["libbackplane-counts-inits.so"].loaded == 1);
  host_backends_work();
  // Each verdict is on disk, for the next process.
  int entries = 0;
  for (const auto &e : fs::directory_iterator(cache)) entries += e.path().filename().string().rfind("probe-", 0) == 0;
  CHECK(entries == 5);
  fs::remove_all(cache);
}

namespace {

// A child process starts the runtime on the plugins of dir and asks for
// counted:0; its wait status (exit 0 when both succeeded).
int start_counted_plugin_in_child(const fs::path &dir) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string toml = bp_test::with_plugins_in(dir.string());
    bp_device d = -1;
    _exit(bp_init_from_string(toml.c_str(), "t.toml") == BP_OK && bp_device_get("counted:0", &d) == BP_OK ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return status;
}

// How many times the counts-inits plugin's init ran, from its log.
int lines_saying_init(const std::string &log) {
  std::ifstream in(log);
  int inits = 0;
  for (std::string line; std::getline(in, line);) inits += line == "init";
  return inits;
}

}  // namespace

TEST_CASE("a probe verdict is cached by file identity: the next process does not probe again") {
  fs::path dir = scratch_dir("cached");
  fs::copy_file(BP_TEST_FAKE_PLUGIN_DIR "/hostile-start/libbackplane-counts-inits.so", dir / "libbackplane-counts-inits.so");
  setenv("BACKPLANE_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string log = (dir / "inits.log").string();
  setenv("BP_FAKE_INIT_LOG", log.c_str(), 1);
  // Two processes start the plugin: the first probes it (one init in the
  // probe, one in the process), the second finds the verdict (one init).
  for (int run = 0; run < 2; ++run) {
    const int status = start_counted_plugin_in_child(dir);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
  }
  CHECK(lines_saying_init(log) == 3);
  // A new build of the plugin (another modification time) is probed again.
  fs::last_write_time(dir / "libbackplane-counts-inits.so", fs::file_time_type::clock::now() + std::chrono::hours(1));
  start_counted_plugin_in_child(dir);
  CHECK(lines_saying_init(log) == 5);
  fs::remove_all(dir);
}
