#!/bin/bash
# SPDX-License-Identifier: MIT
# The man pages and --help agree with what the tools do (QA pass 15, P4 and P5): every option
# --help lists (aliases too) is in the tool's man page; the wisdom and tuning paths name
# $XDG_CACHE_HOME, which the tools honour; tune --budget says what it is; and the small messages
# read right (one "range", no doubled format in dedisp -v's output line, "z 0" for -zmax 0, no
# "once" when no DM was given).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar header dedisp accelsearch ppf tune
src=${FASTPSR_SOURCE:?}

# Every option of --help, in any of its spellings, appears in the man page (one dash or two;
# the common -h/--help, --quiet, --verbose and --version are described together).
for tool in fake-pulsar header dedisp accelsearch ppf tune; do
  man=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$src/man/man1/$tool.1")
  missing=""
  for name in $("$bin/$tool" --help | grep -E '^\s+-' | sed -E 's/^\s+//; s/ .*//' | tr ',' '\n' | sed 's/^-*//' | sort -u); do
    case $name in h | help | quiet | verbose | version) continue ;; esac
    grep -qE -- "(^|[^-a-zA-Z0-9_])--?$name([^-a-zA-Z0-9_]|$)" <<<"$man" || missing="$missing $name"
  done
  check "$tool(1) describes every option of --help (missing:$missing)" test -z "$missing"
done
check "header(1) has the other pages' footer" grep -q '^\.TH HEADER 1 "2026" "fastpsr" "fastpsr manual"' "$src/man/man1/header.1"

# The FFTW wisdom and tuning paths: $XDG_CACHE_HOME first, as the tools do.
for tool in accelsearch ppf; do
  check "$tool --help names \$XDG_CACHE_HOME for the wisdom" sh -c "'$bin/$tool' --help | grep -q 'XDG_CACHE_HOME/fastpsr/fftwf-wisdom'"
  check "$tool(1) names \$XDG_CACHE_HOME for the wisdom" grep -q 'XDG_CACHE_HOME/fastpsr/fftwf' "$src/man/man1/$tool.1"
done
check "README names \$XDG_CACHE_HOME for the tuning database" grep -q 'XDG_CACHE_HOME/fastpsr/tuning.json' "$src/README.md"
check "tune --budget: seconds in all, shared by the run's problems" \
  sh -c "'$bin/tune' dedisp --help | grep -q 'Seconds of measuring in all, shared equally by the problems of the run'"
check "dedisp(1) names no -subzero (no tool takes it)" sh -c "! grep -q subzero '$src/man/man1/dedisp.1'"
check "fake-pulsar(1): --report holds no RFI" grep -q 'not the RFI' "$src/man/man1/fake-pulsar.1"

# Messages.
"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 40000 --seed 1 -o m.fil
"$bin/dedisp" m.fil --dm-plan show --dm-max 20 >plan.txt 2>&1
check "one plan range is 'in 1 range': $(tail -1 plan.txt)" grep -q 'DM trials in 1 range (' plan.txt
"$bin/dedisp" -v m.fil --dm 0:2:1 --format tim-stream -o s.tims 2>err.txt
line=$(grep 'output:' err.txt)
check "dedisp -v names tim-stream once in its output line: $line" test "$(grep -o tim-stream <<<"$line" | wc -l)" -eq 1
expect_exit 2 "dedisp: error: give the DM trials: --dm lo:hi:step.* (none was given)" "$bin/dedisp" m.fil -o x
"$bin/dedisp" -q m.fil -d 0 >m.tim
"$bin/accelsearch" -v -zmax 0 -numharm 1 m.tim 2>err.txt
check "accelsearch -v -zmax 0: 'z 0' ($(grep 'plan:' err.txt))" grep -q 'plan: .* z 0, 1 harmonics' err.txt

[ $fail -eq 0 ] && echo PASS
exit $fail
