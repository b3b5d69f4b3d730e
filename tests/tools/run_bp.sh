#!/bin/sh
# run_bp.sh — runs one `bp` command and checks what it did.
#
#   run_bp.sh [--status 0|nonzero] [--expect REGEX]... [--reject REGEX]... [--json document|lines]
#             [--keys k1,k2,...] [--first-key KEY=VALUE] [--json-type PATH=TYPE]...
#             [--python PATH] -- bp-command args...
#
# --status   the exit status wanted (default 0); "nonzero" means a clean
#            failure: not 0 and not a crash (signal, status >= 128).
# --expect   an extended regular expression that some line of stdout+stderr
#            must match (repeatable: every one must match).
# --reject   an extended regular expression that no line may match (repeatable).
# --json     stdout must be one JSON document, or one JSON object per line.
# --keys     with --json lines: keys every line must have.
# --first-key with --json document: the document is an object whose first
#            key is KEY, with the string VALUE (e.g. schema=bp-devices/2).
# --json-type with --json document: the value at PATH has JSON type TYPE
#            (repeatable). PATH is keys and array indices joined by dots
#            (devices.0.properties.threads); TYPE is string, integer (a
#            number without fraction, not a boolean), number, boolean,
#            null, object or array, or TYPE:VALUE for that type and value
#            (schema_version=integer:2).
# Prints the command's output when a check fails, and exits 1.
set -u
status=0
json=
keys=
first_key=
json_types=
python=/usr/bin/python3
expects=
rejects=
nl='
'
while [ $# -gt 0 ]; do
  case "$1" in
    --status) status=$2; shift 2 ;;
    --expect) expects="$expects$2$nl"; shift 2 ;;
    --reject) rejects="$rejects$2$nl"; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --first-key) first_key=$2; shift 2 ;;
    --json-type) json_types="$json_types$2$nl"; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_bp.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

command="$*"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err" >"$tmp/all"
fail() {
  echo "FAILED: $*" >&2
  echo "---- command: $command" >&2
  echo "---- exit status: $rc" >&2
  echo "---- stdout:" >&2; cat "$tmp/out" >&2
  echo "---- stderr:" >&2; cat "$tmp/err" >&2
  exit 1
}

if [ "$status" = nonzero ]; then
  [ "$rc" -ne 0 ] || fail "expected a non-zero exit status"
  [ "$rc" -lt 128 ] || fail "the command crashed (status $rc)"
else
  [ "$rc" -eq "$status" ] || fail "expected exit status $status, got $rc"
fi

printf '%s' "$expects" | while IFS= read -r re; do
  [ -n "$re" ] || continue
  grep -Eq -- "$re" "$tmp/all" || { echo "missing a line matching: $re" >"$tmp/missing"; break; }
done
[ -s "$tmp/missing" ] && fail "$(cat "$tmp/missing")"
printf '%s' "$rejects" | while IFS= read -r re; do
  [ -n "$re" ] || continue
  grep -Eq -- "$re" "$tmp/all" && { echo "a line matches what it must not: $re" >"$tmp/rejected"; break; }
done
[ -s "$tmp/rejected" ] && fail "$(cat "$tmp/rejected")"

case "$json" in
  "") ;;
  document)
    "$python" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out" 2>"$tmp/pyerr" ||
      fail "stdout is not one JSON document: $(cat "$tmp/pyerr")"
    if [ -n "$first_key" ]; then
      "$python" -c '
import json, sys
key, _, value = sys.argv[1].partition("=")
doc = json.load(sys.stdin)  # an object keeps its keys in document order
if not isinstance(doc, dict) or not doc:
    sys.exit("the document is not a non-empty JSON object")
first = next(iter(doc))
if first != key or doc[first] != value:
    sys.exit("the first key is %r = %r, not %r = %r" % (first, doc[first], key, value))
' "$first_key" <"$tmp/out" 2>"$tmp/pyerr" || fail "first key check: $(cat "$tmp/pyerr")"
    fi
    if [ -n "$json_types" ]; then
      "$python" -c '
import json, sys
doc = json.load(sys.stdin)
types = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
for spec in sys.argv[1].splitlines():
    if not spec:
        continue
    path, _, want = spec.partition("=")
    kind, _, value = want.partition(":")
    if kind not in types:
        sys.exit("--json-type %s: unknown type %r" % (spec, kind))
    v = doc
    for step in path.split("."):
        if isinstance(v, list) and step.isdigit() and int(step) < len(v):
            v = v[int(step)]
        elif isinstance(v, dict) and step in v:
            v = v[step]
        else:
            sys.exit("%s: no %r in %s" % (path, step, json.dumps(v)[:200]))
    if not types[kind](v):
        sys.exit("%s is %s, not of type %s" % (path, json.dumps(v), kind))
    if value and json.dumps(v) != value and v != value:
        sys.exit("%s is %s, not %s" % (path, json.dumps(v), value))
' "$json_types" <"$tmp/out" 2>"$tmp/pyerr" || fail "JSON type check: $(cat "$tmp/pyerr")"
    fi ;;
  lines)
    "$python" -c '
import json, sys
keys = [k for k in sys.argv[1].split(",") if k]
n = 0
for number, line in enumerate(sys.stdin, 1):
    if not line.strip():
        continue
    row = json.loads(line)
    if not isinstance(row, dict):
        sys.exit("line %d is not a JSON object" % number)
    missing = [k for k in keys if k not in row]
    if missing:
        sys.exit("line %d lacks %s" % (number, ", ".join(missing)))
    n += 1
if n == 0:
    sys.exit("no JSON lines at all")
' "$keys" <"$tmp/out" 2>"$tmp/pyerr" || fail "JSON lines check: $(cat "$tmp/pyerr")" ;;
  *) echo "run_bp.sh: --json document|lines" >&2; exit 2 ;;
esac
exit 0
