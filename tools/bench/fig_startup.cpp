// Figure "startup": what the probe of a plugin from outside the built-in
// directory costs a process. Each sample is a fresh `bp devices --json`
// (this executable) started with a configuration naming a plugin path that
// holds one third-party plugin (a copy of the reference plugin), next to the
// same process with the built-in plugins only: with the probe and no cached
// verdict, with the verdict cached, and with the probe turned off.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench.hpp"

namespace fs = std::filesystem;

namespace bptool::bench {

namespace {

// Milliseconds for one `bp devices --json` with this configuration and cache.
double startup_ms(const fs::path &config, const fs::path &cache) {
  const double t0 = now_seconds();
  pid_t pid = fork();
  if (pid < 0) return kNaN;
  if (pid == 0) {
    setenv("BACKPLANE_CONFIG", config.c_str(), 1);
    setenv("BACKPLANE_CACHE_DIR", cache.c_str(), 1);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execl("/proc/self/exe", "bp", "devices", "--json", static_cast<char *>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return kNaN;
  return (now_seconds() - t0) * 1e3;
}

fs::path write_config(const fs::path &dir, const std::string &name, const std::string &text) {
  fs::path p = dir / name;
  std::ofstream(p) << "[plugins]\ndisabled = [\"cuda\", \"opencl\"]\n" << text;
  return p;
}

}  // namespace

void figure_startup(Context &ctx, Report &rep) {
  const int trials = ctx.quick ? 5 : 15;
  const fs::path dir = fs::temp_directory_path() / ("bp-bench-startup-" + std::to_string(getpid()));
  fs::create_directories(dir / "plugins");
  fs::path reference;
  for (int32_t i = 0; i < bp_plugin_report_count(); ++i) {
    bp_plugin_report r{};
    r.struct_size = sizeof r;
    if (bp_plugin_report_get(i, 0, &r) == BP_OK && r.loaded && std::string(r.name) == "reference") reference = r.path;
  }
  std::error_code ec;
  fs::copy_file(reference, dir / "plugins" / "libbackplane-thirdparty.so", ec);
  if (ec) {
    rep.skip("startup", "bp devices --json", "-", "ms", "built-in plugins only",
             "cannot copy the reference plugin: " + ec.message());
    return;
  }
  const std::string paths = "paths = [\"" + (dir / "plugins").string() + "\"]\n";
  const fs::path builtin = write_config(dir, "builtin.toml", "");
  const fs::path probed = write_config(dir, "probed.toml", paths);
  const fs::path unprobed = write_config(dir, "unprobed.toml", paths + "[plugins.thirdparty]\nprobe_in_subprocess = false\n");
  std::vector<double> base, cold, warm, off;
  for (int i = 0; i < trials; ++i) {
    ctx.progress("startup " + std::to_string(i + 1) + "/" + std::to_string(trials));
    const fs::path fresh = dir / ("cache-" + std::to_string(i));
    base.push_back(startup_ms(builtin, fresh));
    cold.push_back(startup_ms(probed, fresh));  // nothing cached yet: probes
    warm.push_back(startup_ms(probed, fresh));  // the verdict of the run before
    off.push_back(startup_ms(unprobed, fresh));
  }
  ctx.progress_done();
  const double baseline = median(base);
  auto row = [&](const std::string &params, const std::vector<double> &v) {
    Row r{"startup", params, "-", "ms"};
    r.higher_is_better = false;
    r.backplane = median(v);
    r.baseline = baseline;
    r.baseline_name = "the same process with the built-in plugins only";
    rep.add(r);
  };
  row("third-party plugin, probed (no cached verdict)", cold);
  row("third-party plugin, verdict cached", warm);
  row("third-party plugin, probe off", off);
  fs::remove_all(dir, ec);
}

}  // namespace bptool::bench
