#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A file without read permission, and one that does not exist. As root (where permissions do not
# stop reading) the unreadable case runs as the unprivileged user `nobody` when setpriv allows.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
EXPECT="No such file or directory" expect_header_error "$WORK/missing.fil" "$WORK/missing.fil"
fil_header >"$WORK/locked.fil"
chmod 000 "$WORK/locked.fil"
if ! cat "$WORK/locked.fil" >/dev/null 2>&1; then
  EXPECT="cannot open for reading: Permission denied" expect_header_error "$WORK/locked.fil" "$WORK/locked.fil"
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
  setpriv --reuid=65534 --regid=65534 --clear-groups "$HEADER" --version >/dev/null 2>&1; then
  chmod 755 "$WORK"
  HEADER_USER="$HEADER"
  HEADER="$WORK/as-nobody"
  printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups "%s" "$@"\n' "$HEADER_USER" >"$HEADER"
  chmod 755 "$HEADER"
  EXPECT="cannot open for reading: Permission denied" expect_header_error "$WORK/locked.fil" "$WORK/locked.fil"
  exit 0
fi
skip "running with privileges that ignore file permissions, and cannot drop them: chmod 000 does not stop reading"
