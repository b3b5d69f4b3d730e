"""The node-to-operator report of a prepared model."""
import collections


class Report:
    def __init__(self, rep):
        self.rep = rep

    def rows(self):
        out = []
        for node in self.rep.plan.nodes:
            out.append({
                "name": node.name, "op_type": node.op_type, "opset": node.opset,
                "where": node.where, "device": None if node.device is None else node.device.name,
                "operators": [_need(n) for n in node.needs] if node.where == "device" else [],
            })
        return out

    def text(self):
        rep, plan = self.rep, self.rep.plan
        graph = plan.model.graph
        counts = collections.Counter(
            node.device.name if node.where == "device" else node.where for node in plan.nodes)
        lines = ["model {}: {} node(s), opset {}, prepared for {}{}".format(
            graph.name or "(unnamed)", len(plan.nodes), plan.opset, rep.device,
            "" if rep.fallback is None else " with fallback " + str(rep.fallback))]
        lines.append("  " + ", ".join("{} {}".format(n, _WHERE.get(w, "on " + w))
                                      for w, n in sorted(counts.items())))
        width = max([len(n.name) for n in plan.nodes] + [4])
        for node in plan.nodes:
            if node.where == "device":
                ops = ", ".join(_need(n) for n in node.needs) or "views only (no operator)"
                where = "{}: {}".format(node.device, ops)
            else:
                where = _WHERE[node.where]
            lines.append("  {:<{w}}  {:<22} {}".format(node.name, node.op_type, where, w=width))
        if rep.copies:
            lines.append("copies on every run ({}):".format(len(rep.copies)))
            for what, name, src, dst in rep.copies:
                lines.append("  '{}' {} -> {} ({})".format(name, src, dst, what))
        else:
            lines.append("copies between devices on every run: none")
        return "\n".join(lines)


_WHERE = {
    "folded": "folded at prepare time (constant)",
    "host": "host: shape arithmetic on values known at run time",
    "metadata": "metadata: read from a tensor's shape",
}


def _need(need):
    if len(need) > 2 and need[2]:
        return "{} {}->{}".format(need[0], need[1], need[2])
    return "{} {}".format(need[0], need[1])
