#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An empty file: a clear error, exit 1.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
: >"$WORK/empty.fil"
EXPECT="empty file" expect_header_error "$WORK/empty.fil" "$WORK/empty.fil"
