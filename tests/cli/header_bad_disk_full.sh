#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A full disk: /dev/full (written in place: it is no regular file), then a small tmpfs when this
# machine lets us mount one. The output never appears under its final name.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ fil_header; head -c $((4 << 20)) /dev/zero; } >"$WORK/in.fil"
[ -c /dev/full ] || skip "no /dev/full here"
EXPECT="No space left on device" expect_header_error /dev/full "$WORK/in.fil" --set source_name=X -o /dev/full
[ -c /dev/full ] || fail "/dev/full was replaced"
mkdir "$WORK/small"
if ! mount -t tmpfs -o size=1m fastpsr-test "$WORK/small" 2>/dev/null; then
  echo "note: cannot mount a small tmpfs here (not root, or no permission): only /dev/full was tested" >&2
  exit 0
fi
trap 'umount "$WORK/small"; rm -rf "$WORK"' EXIT
EXPECT="No space left on device" \
  expect_header_error "$WORK/small/out.fil" "$WORK/in.fil" --set source_name=X -o "$WORK/small/out.fil"
[ -z "$(ls -A "$WORK/small")" ] || fail "left behind: $(ls -A "$WORK/small")"
