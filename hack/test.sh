#!/usr/bin/env bash
# make test: the unit tests and the e2e tests at once. The e2e tests mostly
# wait (docs/testing.md, "Three shards at once") and the unit tests mostly
# compile, so the unit tests run beside them at a lower CPU priority, which
# leaves the control planes and operators of the e2e tests the cores they
# ask for. The e2e output streams to stdout; the unit tests' follows.
set -euo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
mkdir -p _output
# Debian's prometheus before both: CRI-O's build may install packages too,
# and two apt-get runs at once fail on dpkg's lock.
$make --no-print-directory prometheus-tools
log=_output/test-unit.log
nice -n 10 $make --no-print-directory test-unit >"$log" 2>&1 &
unit=$!
e2e_rc=0
$make --no-print-directory test-e2e || e2e_rc=$?
unit_rc=0
wait "$unit" || unit_rc=$?
echo "=== make test-unit (beside the e2e tests; also in $log)"
cat "$log"
echo "make test: test-unit exit $unit_rc, test-e2e exit $e2e_rc"
[ "$unit_rc" = 0 ] && [ "$e2e_rc" = 0 ]
