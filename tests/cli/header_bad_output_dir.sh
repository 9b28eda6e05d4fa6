#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writing into a directory that does not exist: an error naming the output, nothing left behind.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ fil_header; head -c 400 /dev/zero; } >"$WORK/in.fil"
EXPECT="directory '$WORK/nowhere' does not exist" \
  expect_header_error "$WORK/nowhere/out.fil" "$WORK/in.fil" --set source_name=X -o "$WORK/nowhere/out.fil"
[ ! -e "$WORK/nowhere" ] || fail "the missing directory appeared"
