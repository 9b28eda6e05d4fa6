#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A string token whose length is absurd (2^30), and a negative one: no huge allocation, an error.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ token HEADER_START; le32 $((1 << 30)); printf 'source_name'; } >"$WORK/huge.fil"
EXPECT="absurd keyword length 1073741824" expect_header_error "$WORK/huge.fil" "$WORK/huge.fil"
{ token HEADER_START; token source_name; le32 -5; printf 'abc'; token HEADER_END; } >"$WORK/negative.fil"
EXPECT="absurd string length -5" expect_header_error "$WORK/negative.fil" "$WORK/negative.fil"
