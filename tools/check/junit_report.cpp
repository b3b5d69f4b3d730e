// --junit FILE: one <testsuite> per plugin, one <testcase> per group.
#include <fstream>

#include "reports.hpp"
#include "text.hpp"

namespace bpcheck {

namespace {

std::string xml_escape(const std::string &s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t') out += ' ';
        else out += char(c);
    }
  }
  return out;
}

}  // namespace

bool write_junit(const std::string &file, const std::vector<PluginResult> &all) {
  const Counts c = count_groups(all);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += format("<testsuites name=\"bp check\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n", c.passed + c.failed + c.skipped, c.failed, c.skipped);
  for (const PluginResult &p : all) {
    auto it = p.info.find("name");
    std::string name = it != p.info.end() ? it->second : p.path.substr(p.path.rfind('/') + 1);
    int pf = 0, ps = 0;
    double t = 0;
    for (const GroupResult &g : p.groups) {
      pf += g.status == "failed";
      ps += g.status == "skipped";
      t += g.seconds;
    }
    x += format("  <testsuite name=\"backplane.check.%s\" tests=\"%zu\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\">\n",
                xml_escape(name).c_str(), p.groups.size(), pf, ps, t);
    x += "    <properties>\n      <property name=\"path\" value=\"" + xml_escape(p.path) + "\"/>\n";
    for (auto &kv : p.info)
      x += "      <property name=\"" + xml_escape(kv.first) + "\" value=\"" + xml_escape(kv.second) + "\"/>\n";
    x += "    </properties>\n";
    for (const GroupResult &g : p.groups) {
      x += format("    <testcase classname=\"backplane.check.%s.L%d\" name=\"%s\" time=\"%.3f\"", xml_escape(name).c_str(),
                  g.def->level, xml_escape(g.def->title).c_str(), g.seconds);
      if (g.status == "passed") {
        x += "/>\n";
      } else if (g.status == "skipped") {
        x += ">\n      <skipped message=\"" + xml_escape(g.summary) + "\"/>\n    </testcase>\n";
      } else {
        std::string body;
        for (const std::string &f : g.failures) body += f + "\n";
        if (!g.output_tail.empty()) body += "--- output of the check process ---\n" + g.output_tail;
        x += ">\n      <failure message=\"" + xml_escape(g.summary) + "\">" + xml_escape(body) + "</failure>\n    </testcase>\n";
      }
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  std::ofstream out(file);
  out << x;
  return bool(out);
}

}  // namespace bpcheck
