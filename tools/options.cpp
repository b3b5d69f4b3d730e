#include "options.hpp"

#include <cstdio>

#include "commands.hpp"

namespace bptool {

Options::Options(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {
  flag("help", "show this help and exit");
}

void Options::flag(const std::string &name, const std::string &help) {
  specs_.push_back({name, "", help, "", false});
}

void Options::value(const std::string &name, const std::string &metavar, const std::string &help,
                    const std::string &fallback) {
  specs_.push_back({name, metavar, help, fallback, true});
}

void Options::positionals(const std::string &metavar, const std::string &help, size_t min,
                          size_t max) {
  pos_metavar_ = metavar;
  pos_help_ = help;
  pos_min_ = min;
  pos_max_ = max;
}

void Options::epilog(const std::string &text) { epilog_ = text; }

const Options::Spec *Options::find(const std::string &name) const {
  for (const Spec &s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Options::usage() const {
  std::string u = "usage: " + command_ + " [options]";
  if (pos_max_ > 0) u += " " + pos_metavar_ + (pos_max_ > 1 ? "..." : "");
  u += "\n\n" + summary_ + "\n\noptions:\n";
  for (const Spec &s : specs_) {
    std::string left = "  --" + s.name + (s.takes_value ? " " + s.metavar : "");
    if (s.name == "help") left = "  -h, --help";
    if (left.size() < 24) left.resize(24, ' ');
    else left += "\n" + std::string(24, ' ');
    u += left + s.help;
    if (s.takes_value && !s.fallback.empty()) u += " (default: " + s.fallback + ")";
    u += "\n";
  }
  if (pos_max_ > 0) {
    std::string left = "  " + pos_metavar_;
    if (left.size() < 24) left.resize(24, ' ');
    u += left + pos_help_ + "\n";
  }
  if (!epilog_.empty()) u += "\n" + epilog_ + (epilog_.back() == '\n' ? "" : "\n");
  return u;
}

int Options::usage_error(const std::string &message) const {
  std::fprintf(stderr, "%s: %s (see `%s --help`)\n", command_.c_str(), message.c_str(),
               command_.c_str());
  return kExitUsage;
}

std::optional<int> Options::parse(int argc, char **argv) {
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (!options_done && a == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && (a == "-h" || a == "--help")) {
      std::fputs(usage().c_str(), stdout);
      return kExitOk;
    }
    if (!options_done && a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(2), val;
      bool inline_value = false;
      if (size_t eq = name.find('='); eq != std::string::npos) {
        val = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
      const Spec *s = find(name);
      if (!s) return usage_error("unknown option '--" + name + "'");
      if (s->takes_value) {
        if (!inline_value) {
          if (i + 1 >= argc) return usage_error("option '--" + name + "' needs a value " + s->metavar);
          val = argv[++i];
        }
      } else if (inline_value) {
        return usage_error("option '--" + name + "' takes no value");
      }
      given_[name] = val;
      continue;
    }
    if (!options_done && a.size() > 1 && a[0] == '-')
      return usage_error("unknown option '" + a + "'");
    args_.push_back(a);
  }
  if (args_.size() > pos_max_)
    return usage_error(pos_max_ == 0 ? "unexpected argument '" + args_[pos_max_] + "'"
                                     : "too many arguments");
  if (args_.size() < pos_min_) return usage_error("missing " + pos_metavar_);
  return std::nullopt;
}

bool Options::has(const std::string &name) const { return given_.count(name) != 0; }

std::string Options::get(const std::string &name) const {
  if (auto it = given_.find(name); it != given_.end()) return it->second;
  const Spec *s = find(name);
  return s ? s->fallback : "";
}

}  // namespace bptool
