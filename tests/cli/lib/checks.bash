# SPDX-License-Identifier: MIT
# Sourced by the cli tests: a failed check prints FAIL and sets fail=1, so a script reports every
# failure and exits with "exit $fail" at its end. Not a test itself (tests are cli/*.sh).
fail=0

# check <description> <command...>: the command must succeed.
check() {
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fail=1
  fi
}

# expect_exit <exit code> <text in stderr> <command...>: the command must exit with that code and
# say that text on stderr (its stdout goes to out.stdout, its stderr to err.txt).
expect_exit() {
  local code=$1 text=$2
  shift 2
  "$@" >out.stdout 2>err.txt
  local got=$?
  if [ "$got" != "$code" ] || ! grep -q -- "$text" err.txt; then
    echo "FAIL: ${*##*/} -> exit $got (want $code), stderr: $(cat err.txt) (want '$text')"
    fail=1
  fi
}
