#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tsamp of 0 and of -1 ms.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
for t in "$D_ZERO" "$D_M1MS"; do
  TSAMP=$t fil_header >"$WORK/tsamp.fil"
  EXPECT="tsamp must be a positive number of seconds" expect_header_error "$WORK/tsamp.fil" "$WORK/tsamp.fil"
done
