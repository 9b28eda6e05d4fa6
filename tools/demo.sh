#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: inject a pulsar, dedisperse, search, and show what was found.
set -eu
bin=${1:-build/bin}
echo "demo: not yet assembled (tools land one by one)"
ls "$bin"
