#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM: the built pghot kselftests (PGHOT_TESTS, globs
# relative to SELFTESTS), with a timeout each.
# Prints TAP from each and a closing summary; exits non-zero if any failed.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
SELFTESTS=${SELFTESTS:-$TOP/out/selftests}
PER_TEST_TIMEOUT=${PER_TEST_TIMEOUT:-900}
PGHOT_TESTS=${PGHOT_TESTS:-pghot_*}	# globs of test names to run
pass=0 fail=0 skip=0
for t in $(for g in $PGHOT_TESTS; do echo "$SELFTESTS"/$g; done); do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "# ---- $name"
	log=/tmp/$name.log
	timeout -k 5 "$PER_TEST_TIMEOUT" "$t" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok [0-9]+ ' "$log" | head -1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log")
	f=$(grep -cE '^not ok [0-9]+ ' "$log")
	p=$((p - s))
	if [ $((p + s + f)) = 0 ]; then
		# Not TAP (a plain script): its exit status is the result.
		case $rc in 0) p=1 ;; 4) s=1 ;; *) f=1 ;; esac
		echo "# $name exited with $rc"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$f" = 0 ]; then
		echo "# $name exited with $rc"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "selftests: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] && [ $((pass + skip)) -gt 0 ]
