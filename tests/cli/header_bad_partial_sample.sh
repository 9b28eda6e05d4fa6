#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Data that end inside a sample (4-byte samples, 4*10+3 bytes).
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ fil_header; head -c 43 /dev/zero; } >"$WORK/partial.fil"
EXPECT="trailing partial sample" expect_header_error "$WORK/partial.fil" "$WORK/partial.fil"
