#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A keyword no reader knows (SIGPROC and PRESTO stop there too: its value's size is unknown).
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
EXTRA="$(key_int frobnicate 3 | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g')" fil_header >"$WORK/unknown.fil"
EXPECT="unknown header keyword 'frobnicate'" expect_header_error "$WORK/unknown.fil" "$WORK/unknown.fil"
