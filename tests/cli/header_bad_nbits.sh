#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nbits 3 (and 0 and 64): no such SIGPROC sample width.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
for b in 3 0 64; do
  NBITS=$b fil_header >"$WORK/nbits.fil"
  EXPECT="unsupported nbits $b" expect_header_error "$WORK/nbits.fil" "$WORK/nbits.fil"
done
