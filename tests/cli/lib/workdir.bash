# SPDX-License-Identifier: MIT
# The start of a CLI test, sourced with the tools it runs:
#   source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
# sets `bin` (FASTPSR_BIN), skips (status 77) unless every named tool is built, moves into a
# fresh temporary directory `tmp` (removed on exit, made writable first; its own XDG cache, so
# FFTW wisdom and tuning files stay away from the user's) and loads the check helpers.
set -u
bin=${FASTPSR_BIN:?}
for tool in "$@"; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export XDG_CACHE_HOME="$tmp/cache"
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"
# `bash -c "$(address_limit KIB) && cmd"`: cmd under ulimit -v KIB, except under ASan, whose
# shadow memory needs terabytes of address space (a limit makes every tool abort at start).
address_limit() { if [ -n "${FASTPSR_ASAN:-}" ]; then echo true; else echo "ulimit -v $1"; fi; }
# `skip_under_asan "why"`: the test is skipped (status 77) under ASan, saying why; for tests whose
# point is an address-space limit (ASan cannot start under one).
skip_under_asan() {
  if [ -n "${FASTPSR_ASAN:-}" ]; then
    echo "skipped under ASan: $1"
    exit 77
  fi
}
