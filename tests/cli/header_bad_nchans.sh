#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# nchans of 0 and of -7.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
for n in 0 -7; do
  NCHANS=$n fil_header >"$WORK/nchans.fil"
  EXPECT="nchans must be positive, the header says $n" expect_header_error "$WORK/nchans.fil" "$WORK/nchans.fil"
done
