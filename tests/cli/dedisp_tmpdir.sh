#!/bin/bash
# SPDX-License-Identifier: MIT
# A --tmpdir that cannot hold the spool file is named and said to be one (QA pass 20, finding 13:
# `--tmpdir /proc` said only "cannot create a spool file for the output: No such file or
# directory", mkstemp's errno for a directory that exists). Status 1, no output left behind.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
skip_under_asan "the spool spills to its file only under a memory limit (ulimit -v)"

"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 64 -nsamples 400000 -seed 1 -o s.fil
# 101 records of 400000 x 4 B (162 MB) are more than the spool may keep in memory under a 500 MB
# address-space limit (a quarter of what is left: under 100 MiB here, ~60 MiB on the GPU machine,
# whose CUDA libraries take more of the limit). Two threads whatever the machine: each OpenMP
# thread maps a stack and buffers inside the limit (with 16, on the GPU machine, the run did not
# fit at all). At 400 MB the run itself (about 150 MiB) fitted on the GPU machine only just, and
# once not (H200, 2026-11-29: 150.3 MiB needed, 145.9 allowed).
spooled() {
  bash -c "$(address_limit 500000) && OMP_NUM_THREADS=2 '$bin/dedisp' -q --device cpu s.fil --dm 0:100:1 --format tim-stream $* -o x.tims"
}
expect_exit 1 "dedisp: error: /proc: cannot hold temporary files (the output's spool file could not be created there: No such file or directory); choose another directory with --tmpdir or TMPDIR" \
  spooled --tmpdir /proc
check "no output left: $(ls -A)" test ! -e x.tims
expect_exit 1 "dedisp: error: $tmp/none: cannot hold temporary files (No such file or directory)" \
  spooled --tmpdir "$tmp/none"
expect_exit 1 "dedisp: error: s.fil: cannot hold temporary files (not a directory)" spooled --tmpdir s.fil
mkdir spool
spooled --tmpdir spool
check "the run spooled to --tmpdir spool: $(ls -l x.tims)" test "$(stat -c %s x.tims)" -gt 160000000
exit $fail
