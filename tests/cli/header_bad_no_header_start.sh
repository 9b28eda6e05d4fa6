#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A file that does not start with HEADER_START (and has no other known format).
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ token HEADER_STAXT; key_int nchans 4; token HEADER_END; } >"$WORK/nostart.fil"
EXPECT="unknown format" expect_header_error "$WORK/nostart.fil" "$WORK/nostart.fil"
