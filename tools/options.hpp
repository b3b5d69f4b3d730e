// options.hpp — option parsing shared by every subcommand.
//
//   bptool::Options opts("bp devices", "List every device ...");
//   opts.flag("json", "print one JSON document");
//   opts.value("figure", "NAME", "run one figure");
//   if (auto rc = opts.parse(argc, argv)) return *rc;   // --help, or a usage error
//   if (opts.has("json")) ...
//
// Accepts --name, --name=value, --name value, -h, and `--` to end options.
// --help prints the usage to stdout (exit 0); an unknown option, a missing
// value or an unexpected argument prints a message to stderr (exit 2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bptool {

class Options {
 public:
  Options(std::string command, std::string summary);

  // A boolean --name.
  void flag(const std::string &name, const std::string &help);
  // --name VALUE; `fallback` is what get() returns when it is absent.
  void value(const std::string &name, const std::string &metavar, const std::string &help,
             const std::string &fallback = "");
  // Positional arguments: between min and max of them (default: none allowed).
  void positionals(const std::string &metavar, const std::string &help, size_t min, size_t max);
  // Free text printed after the option list.
  void epilog(const std::string &text);

  // argv[0] is the subcommand. Returns an exit status when the caller must
  // stop (help printed: 0; usage error printed: 2), nothing otherwise.
  std::optional<int> parse(int argc, char **argv);

  bool has(const std::string &name) const;
  std::string get(const std::string &name) const;
  const std::vector<std::string> &args() const { return args_; }

  std::string usage() const;
  // Prints "<command>: <message> (see `<command> --help`)" to stderr; returns 2.
  int usage_error(const std::string &message) const;

 private:
  struct Spec {
    std::string name, metavar, help, fallback;
    bool takes_value = false;
  };
  const Spec *find(const std::string &name) const;

  std::string command_, summary_, epilog_;
  std::vector<Spec> specs_;
  std::string pos_metavar_, pos_help_;
  size_t pos_min_ = 0, pos_max_ = 0;
  std::map<std::string, std::string> given_;
  std::vector<std::string> args_;
};

}  // namespace bptool
