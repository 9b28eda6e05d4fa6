#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A run ended by SIGINT, SIGTERM or SIGHUP removes its temporary outputs (.NAME.tmp.PID.SERIAL),
# says so on stderr and dies of the signal (the shell sees 128+N), leaving no file under the final
# name: fake-pulsar writing one long file, dedisp writing 2000 .dat/.inf pairs from several
# threads. A signal that was ignored when the tool started (nohup) stays ignored.
set -u
bin=${FASTPSR_BIN:?}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastpsr-cli-XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

# Without job control a script's background commands ignore SIGINT, which the tools then keep.
set -m

temporaries() { find . -maxdepth 1 -name '.*.tmp.*' | wc -l; }

# Starts "$@" in the background and waits (10 s at most) until one of its temporaries exists.
start_and_wait_for_temporary() {
  "$@" 2>"$tmp/err" &
  pid=$!
  for _ in $(seq 500); do
    [ "$(temporaries)" -gt 0 ] && return 0
    kill -0 "$pid" 2>/dev/null || fail "$1 ended before writing: $(cat "$tmp/err")"
    sleep 0.02
  done
  fail "no temporary from $1 after 10 s"
}

# Sends $1, waits, checks the status 128+N, that no temporary and none of the finals ($3...) is left.
signal_and_check() {
  local sig=$1 code=$2
  shift 2
  kill -"$sig" "$pid"
  wait "$pid"
  local rc=$?
  pid=
  [ "$rc" -eq "$code" ] || fail "SIG$sig: exit status $rc, expected $code; stderr: $(cat "$tmp/err")"
  grep -q ": stopped by SIG$sig; unfinished outputs removed\$" "$tmp/err" ||
    fail "SIG$sig: no line saying so on stderr: $(cat "$tmp/err")"
  [ "$(temporaries)" -eq 0 ] || fail "SIG$sig left $(temporaries) temporaries: $(find . -name '.*.tmp.*' | head -3)"
  local f
  for f in "$@"; do
    [ ! -e "$f" ] || fail "SIG$sig left the final file $f"
  done
  echo "ok: SIG$sig -> exit $rc, nothing left"
}

# fake-pulsar: 600 s of 256 channels would be 480 MB; stopped within its first megabytes.
fake=("$bin/fake-pulsar" --nchans 256 --nbits 8 --tobs 600 --seed 1 -o "$tmp/kf.fil")
for s in INT:130 TERM:143 HUP:129; do
  start_and_wait_for_temporary "${fake[@]}"
  signal_and_check "${s%:*}" "${s#*:}" kf.fil
done

# Ignored at start (as under nohup): SIGHUP does nothing, SIGTERM still cleans up.
trap '' HUP
"${fake[@]}" 2>"$tmp/err" &
pid=$!
trap - HUP
for _ in $(seq 500); do [ "$(temporaries)" -gt 0 ] && break; sleep 0.02; done
kill -HUP "$pid"
sleep 0.2
kill -0 "$pid" 2>/dev/null || fail "an ignored SIGHUP ended fake-pulsar"
[ "$(temporaries)" -gt 0 ] || fail "an ignored SIGHUP removed the temporary"
signal_and_check TERM 143 kf.fil

# dedisp: 2001 DMs to .dat + .inf, created from several threads; the whole run takes seconds
# (mostly creating the files), the signal comes at the first temporary.
"$bin/fake-pulsar" --nchans 64 --nbits 8 --tobs 20 --seed 2 -o "$tmp/obs.fil" || fail "fake-pulsar for dedisp's input"
start_and_wait_for_temporary "$bin/dedisp" "$tmp/obs.fil" --dm 0:1000:0.5 -o "$tmp/kd"
sleep 0.1  # a few hundred files open by now
signal_and_check INT 130
finals=$(find . -maxdepth 1 -name 'kd_*' | wc -l)
[ "$finals" -eq 0 ] || fail "dedisp left $finals final files after SIGINT"
echo "ok"
