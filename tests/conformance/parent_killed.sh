#!/bin/sh
# parent_killed.sh PIDFILE PLUGIN BP_CHECK...
# Starts `BP_CHECK --probe --timeout 600 PLUGIN` on a plugin whose
# constructor never returns (it writes the pid of the process loading it to
# PIDFILE), kills that bp check with SIGKILL once the child is stuck in the
# constructor, and fails unless the child goes too. No fixed sleeps decide
# the verdict: each wait ends on the event it waits for (or fails after a
# generous limit).
pidfile=$1
plugin=$2
shift 2
rm -f "$pidfile"
BP_FAKE_PID_FILE=$pidfile "$@" --probe --timeout 600 "$plugin" >/dev/null 2>&1 &
parent=$!

# Alive and not a zombie (a reaped or zombie process is gone for this test).
# Read from /proc, not ps: a minimal Debian has no procps. The state is the
# field after the command's closing parenthesis.
alive() {
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  state=${stat##*) }
  [ -n "$stat" ] && [ "${state%% *}" != Z ]
}

tries=0
while [ ! -s "$pidfile" ]; do
  tries=$((tries + 1))
  if [ $tries -gt 1200 ] || ! alive "$parent"; then
    echo "the child never reached the plugin's constructor"
    kill -KILL "$parent" 2>/dev/null
    exit 1
  fi
  sleep 0.1
done
child=$(cat "$pidfile")
kill -KILL "$parent"
wait "$parent" 2>/dev/null

tries=0
while alive "$child"; do
  tries=$((tries + 1))
  if [ $tries -gt 600 ]; then
    echo "the child $child of the killed bp check is still running"
    kill -KILL "$child"
    exit 1
  fi
  sleep 0.1
done
echo "the child $child went with its killed parent"
