# SPDX-License-Identifier: MIT
# Sourced by the cli tests (after checks.bash): a tool's peak resident size against the host
# memory its -v reported. Not a test itself (tests are cli/*.sh).

# peak_rss_kib <command...>: runs the command (stderr to err.txt) and prints its peak resident
# size in KiB; prints nothing where no tool measures it.
peak_rss_kib() {
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o rss.txt "$@" 2>err.txt >/dev/null
    tail -n 1 rss.txt
  elif command -v python3 >/dev/null; then
    python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open("err.txt", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
  fi
}

# The host memory -v reported ("memory: host X MiB in all"), MiB.
reported_mib() { sed -n 's/.*memory: host \([0-9.]*\) MiB in all.*/\1/p' err.txt; }

# check_rss <what> <peak KiB> <reported MiB> [lowest share, default 0.9]: the peak is at least
# that share of the reported memory (buffers never filled, a growing buffer's worst case counted)
# and at most 24 MiB more (the program, libraries, FFTW, thread stacks).
check_rss() {
  local what=$1 rss=$2 mib=$3 share=${4:-0.9}
  if [ -z "$rss" ]; then
    echo "note: no /usr/bin/time or python3 here: $what's peak memory not measured"
    return
  fi
  if [ -n "${FASTPSR_ASAN:-}" ]; then  # ASan's shadow memory and quarantine add to the resident size
    echo "note: ASan build: $what's peak memory not compared with -v"
    return
  fi
  check "$what: -v says $mib MiB, the peak resident size was $((rss / 1024)) MiB" \
    awk -v r="$rss" -v m="$mib" -v s="$share" 'BEGIN { exit !(m > 0 && r / 1024 >= s * m && r / 1024 <= m + 24) }'
}
