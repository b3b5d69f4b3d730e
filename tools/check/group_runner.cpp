#include "group_runner.hpp"

#include "child_process.hpp"
#include "selection.hpp"
#include "text.hpp"

namespace bpcheck {

GroupResult run_group(const GroupDef &g, const std::string &plugin, const Options &opt, const std::string &reference) {
  std::vector<std::string> args = {"--run-group", g.id, "--result-fd", "3"};
  if (!reference.empty()) args.insert(args.end(), {"--reference", reference});
  if (opt.device >= 0) args.insert(args.end(), {"--device", std::to_string(opt.device)});
  if (!opt.ops.empty()) args.insert(args.end(), {"--ops", op_list_text(opt.ops)});
  args.push_back(plugin);
  ChildRun run = run_child(args, opt.timeout);
  GroupResult r;
  r.def = &g;
  r.seconds = run.seconds;
  r.output_tail = run.output_tail;
  std::string last_begin, verdict;
  for (auto &ev : run.events) {
    switch (ev.first) {
      case 'B': last_begin = ev.second; break;
      case 'P': ++r.checks_passed; break;
      case 'F': ++r.checks_failed; r.failures.push_back(ev.second); break;
      case 'N': r.notes.push_back(ev.second); break;
      case 'I': {
        size_t sp = ev.second.find(' ');
        r.infos.emplace_back(ev.second.substr(0, sp), sp == std::string::npos ? "" : ev.second.substr(sp + 1));
        break;
      }
      case 'R': verdict = ev.second; break;
      default: break;
    }
  }
  const std::string where = last_begin.empty() ? "" : " (while running: " + last_begin + ")";
  if (run.timed_out) {
    r.status = "failed";
    r.summary = format("timed out after %d s in group ", opt.timeout) + group_label(g) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  if (run.signal) {
    r.status = "failed";
    r.summary = "crashed: " + signal_name(run.signal) + " in group " + group_label(g) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  if (verdict.empty()) {
    r.status = "failed";
    r.summary = format("the check process of group %s exited with status %d without a verdict", group_label(g).c_str(),
                       run.exit_code) + where;
    r.failures.insert(r.failures.begin(), r.summary);
    return r;
  }
  size_t sp = verdict.find(' ');
  r.status = verdict.substr(0, sp);
  r.summary = sp == std::string::npos ? "" : verdict.substr(sp + 1);
  if (r.status == "failed" && !r.failures.empty()) r.summary = r.failures.front();
  return r;
}

GroupResult not_run(const GroupDef &g, const std::string &status, const std::string &why) {
  GroupResult r;
  r.def = &g;
  r.status = status;
  r.summary = why;
  if (status == "failed") r.failures.push_back(why);
  return r;
}


}  // namespace bpcheck
