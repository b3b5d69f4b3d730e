"""Runs every ">>>" line that `bp tour` printed (read from standard input)
with the backplane Python package, in order, in one namespace: each must be
a spelling the package accepts. A BackplaneError is the runtime answering
(the tour's X + Y on two devices must fail that way); any other exception
(TypeError, NameError, AttributeError: a spelling the package does not
accept) fails the test."""
import sys

import backplane as bp

lines = [l.split(">>> ", 1)[1].rstrip("\n") for l in sys.stdin if ">>> " in l]
if not lines:
    sys.exit("the tour printed no >>> lines")
namespace = {"bp": bp}
for line in lines:
    try:
        exec(compile(line, "<tour>", "exec"), namespace)
    except bp.BackplaneError:
        pass
    except Exception as e:  # noqa: BLE001 - any other failure is a wrong spelling
        sys.exit("the tour's line %r fails in Python: %s: %s" % (line, type(e).__name__, e))
print("%d lines accepted" % len(lines))
