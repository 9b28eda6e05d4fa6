# SPDX-License-Identifier: MIT
# Shared by the PRESTO/SIGPROC compatibility shims (Makefile.presto-compat): where fastpsr's tools
# are, and how a shim refuses an option fastpsr does not implement (loudly, never silently).
# FASTPSR_BINDIR overrides the directory fixed at install time.
fastpsr_bindir=${FASTPSR_BINDIR:-@BINDIR@}
shim=$(basename "$0")
# The tool run by the shim names the shim in its messages ("prepsubband (fastpsr): error: ...",
# as below), not itself (apps/common/tool_main.cpp); the tool unsets it again.
export FASTPSR_COMMAND=$shim
# Its messages also name the tool's flags as the shim spells them, from the list the shim sets:
# FASTPSR_FLAG_NAMES="--nsub=-nsub ..." (tool flag=shim flag; apps/common/tool_main.cpp).
unsupported() {
  echo "$shim (fastpsr): error: option $1 is not supported by the fastpsr shim ($2)" >&2
  exit 2
}
# -h/--help: shim_help TOOL USAGE prints what the shim is, its usage and where the rest is said.
shim_help() {
  echo "$shim (fastpsr): $shim's flags and files, run by fastpsr's $1"
  echo "usage: $2"
  echo "What each flag does here, and what is refused: man fastpsr-presto-compat; $1's own options: $1 --help"
}
# A command line the shim cannot run (-o missing, an option it cannot honour): status 2, nothing written.
refuse() {
  echo "$shim (fastpsr): error: $*" >&2
  exit 2
}
# What prepsubband and prepdata need before dedisp runs: check_presto_command ROOT NOBARY.
# PRESTO requires -o (clig -m); it barycentres unless -nobary, which dedisp never does: said, but
# run. Several input files are one observation in time order, for dedisp as for PRESTO (both pad
# a gap between them).
check_presto_command() {
  [ -n "$1" ] || refuse "-o <root> is required"
  [ -n "$2" ] || echo "$shim (fastpsr): note: no barycentring: PRESTO barycentres without -nobary;" \
    "these series are topocentric (as with -nobary; the .inf says Barycentered? = 0)" >&2
}
# Where prepdata or prepsubband starts: add_start_options START OFFSET PROGRAM appends the dedisp
# options to the shim's args. A -start above 0 wins over -offset, as in PRESTO (prepdata.c,
# prepsubband.c); -start is rounded down to PROGRAM's reads (dedisp --start-rounding).
add_start_options() {
  if [ -n "$1" ] && ! awk -v s="$1" 'BEGIN { exit !(s + 0 == 0 && s ~ /^[-+0-9.eE]+$/) }'; then
    args+=(--start-fraction "$1" --start-rounding "$3")
  elif [ -n "$2" ]; then
    args+=(--start "$2")
  fi
}
