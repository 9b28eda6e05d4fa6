#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: every benchmark program in <build>/bench, one after the other.
set -eu
build=${1:-build}
for b in "$build"/bench/*; do
  [ -x "$b" ] || continue
  echo "== $b"
  "$b"
done
