#!/bin/bash
# SPDX-License-Identifier: MIT
# The fake-pulsar examples of the README, the man page and --help run as written. The commands are
# read from those texts, not copied here, so an example that goes stale fails this test. Examples
# that pipe into other tools or redirect stdout are left to the tests of those pipelines; every
# example that writes its own file with -o is run, and its file must appear.
set -euo pipefail
bin=${FASTPSR_BIN:?}
src=${FASTPSR_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin/fake-pulsar" --help > "$tmp/help.txt"
# One command a line: continuation lines joined, roff escapes undone, only the fake-pulsar section
# of the README and the EXAMPLES section of the man page.
python3 - "$src/README.md" "$src/man/man1/fake-pulsar.1" "$tmp/help.txt" > "$tmp/commands" <<'PY'
import re, sys
readme, man, help_ = (open(p).read() for p in sys.argv[1:4])

def commands(text):
    out, cur = [], None
    for line in text.splitlines():
        s = line.strip()
        if cur is None and not s.startswith("fake-pulsar "):
            continue
        cur = (cur + " " if cur else "") + s.rstrip("\\").strip()
        if not s.endswith("\\"):
            out.append(cur)
            cur = None
    return out

section = readme.split("<!-- section: fake-pulsar -->")[1].split("<!-- section:")[0]
man_examples = man.split(".SH EXAMPLES")[1].split("\n.SH ")[0].replace("\\e", "\\").replace("\\-", "-")
help_examples = help_.split("Examples:")[1]
for where, text in (("README", section), ("man page", man_examples), ("--help", help_examples)):
    for c in commands(text):
        if "|" not in c and ">" not in c and " -o " in c:
            print(f"{where}\t{c}")
PY

# The examples that failed as written once (narrowband RFI outside the default band) must be there.
grep -q "^README.*--rfi-narrowband freq=1420.4.*-o mix.fil" "$tmp/commands" || fail "README's mix.fil example not found"
grep -q "^man page.*--rfi-narrowband freq=1420.4.*-o frb.fil" "$tmp/commands" || fail "man page's FRB example not found"

mkdir "$tmp/run"
n=0
while IFS=$'\t' read -r where command; do
  n=$((n + 1))
  out=${command##* -o }
  out=${out%% *}
  rm -f "$tmp/run/$out"
  set +e
  (cd "$tmp/run" && PATH="$bin:$PATH" bash -c "$command") 2> "$tmp/err"
  rc=$?
  set -e
  [ $rc = 0 ] || fail "the $where example exits $rc: $command: $(cat "$tmp/err")"
  [ -s "$tmp/run/$out" ] || fail "the $where example wrote no $out: $command"
  rm -f "$tmp/run/$out"
done < "$tmp/commands"
[ $n -ge 4 ] || fail "only $n examples found"
echo "PASS ($n examples)"
