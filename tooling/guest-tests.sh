#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM: the built kselftests named by PGHOT_TESTS (names
# or globs relative to SELFTESTS; NAME:FIXTURE runs only that fixture's
# cases, the harness's -f), each with a timeout, then the end-of-boot hang
# check (tooling/guest-hangcheck.sh; PGHOT_HANGCHECK=0 leaves it out).
# PGHOT_BACKGROUND, a script under the repository's top directory, runs a
# load beside the tests ("start" before them, "stop" after them, which
# prints its own result lines).
#
# Prints each test's TAP, one line per test case
#	result: PASS|FAIL|SKIP|MEASURE <binary>/<case>[ # <why>]
# (tooling/check.sh adds these up over the boots) and a closing
#	selftests: N passed, N failed, N skipped
# followed by the skips. Exits 0 only if nothing failed and something ran.
#
# What counts as a failure: a "not ok"; a binary that is missing, not
# executable, killed, timed out or exiting non-zero without a "not ok";
# fewer results than the TAP plan announced; and, in the VM (PGHOT_VM=1,
# unless PGHOT_STRICT_SKIPS=0), a SKIP that tooling/skips.allow does not
# list for this boot (PGHOT_BOOT). A case whose name ends in "_cost" is a
# measurement that cannot fail: it is reported as MEASURE, not as a pass.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SELFTESTS=${SELFTESTS:-$OUT/selftests}
PER_TEST_TIMEOUT=${PER_TEST_TIMEOUT:-900}
PGHOT_TESTS=${PGHOT_TESTS:-pghot_*}	# names or globs of tests to run
PGHOT_BOOT=${PGHOT_BOOT:-vm}		# the boot, for tooling/skips.allow
STRICT=0
[ "${PGHOT_VM:-0}" = 1 ] && STRICT=${PGHOT_STRICT_SKIPS:-1}
RESULTS=/tmp/pghot-results.$$
: > "$RESULTS"

# result STATUS ID [WHY]
result() {
	local line="result: $1 $2"

	[ -z "${3:-}" ] || line+=" # $3"
	echo "$line" | tee -a "$RESULTS"
}

# A SKIP, or a FAIL if the VM does not allow this one.
skipped() {
	local id=$1 msg=$2

	if [ "$STRICT" = 1 ] && ! skip_allowed "$PGHOT_BOOT" "$id" "$msg"; then
		result FAIL "$id" "SKIP not allowed in the VM (tooling/skips.allow): $msg"
	else
		result SKIP "$id" "$msg"
	fi
}

# The results of binary $1 from its TAP in $2; $3 its exit status.
tap_results() {
	local name=$1 log=$2 rc=$3 plan nres=0 nfail=0 line st rest id dir

	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$log" | head -1)
	while IFS= read -r line; do
		case "$line" in
		'ok '*) st=PASS; rest=${line#ok } ;;
		'not ok '*) st=FAIL; rest=${line#not ok } ;;
		*) continue ;;
		esac
		rest=${rest#* }		# the test number
		id="$name/${rest%% # *}"
		dir=
		[ "${rest#* # }" = "$rest" ] || dir=${rest#* # }
		nres=$((nres + 1))
		case "$st:$dir" in
		PASS:) case "$id" in
			*_cost) result MEASURE "$id" ;;
			*) result PASS "$id" ;;
			esac ;;
		PASS:SKIP*) dir=${dir#SKIP}; skipped "$id" "${dir# }" ;;
		FAIL:*) result FAIL "$id" "$dir"; nfail=$((nfail + 1)) ;;
		*) result FAIL "$id" "unexpected TAP directive: $dir"; nfail=$((nfail + 1)) ;;
		esac
	done <<< "$(grep -E '^(not )?ok [0-9]+ ' "$log")"
	if [ -n "$plan" ] && [ "$nres" -lt "$plan" ]; then
		result FAIL "$name" "$((plan - nres)) of $plan results missing (exit status $rc)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		result FAIL "$name" "timed out after ${PER_TEST_TIMEOUT}s"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$nfail" = 0 ]; then
		result FAIL "$name" "exited with $rc without a failed case"
	fi
}

# Copies TAP from stdin, adding after each case's result what it cost
# (wall seconds since the previous result), for make check's time budget.
case_times() {
	local line t0=$SECONDS

	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		'ok '*|'not ok '*)
			echo "# ---- case: $((SECONDS - t0)) s"
			t0=$SECONDS ;;
		esac
	done
}

run_one() {
	local t=$1 fixture=${2:-} name log rc t0=$SECONDS

	name=${t#"$SELFTESTS"/}
	echo "# ---- $name${fixture:+ -f $fixture}"
	log=/tmp/$(echo "$name" | tr / _).log
	timeout -k 5 "$PER_TEST_TIMEOUT" "$t" ${fixture:+-f "$fixture"} 2>&1 | case_times | tee "$log"
	rc=${PIPESTATUS[0]}
	# What each test costs, for make check's time budget.
	echo "# ---- $name: $((SECONDS - t0)) s"
	if grep -qE '^(not )?ok [0-9]+ ' "$log"; then
		tap_results "$name" "$log" "$rc"
		return
	fi
	if [ -n "$fixture" ]; then
		result FAIL "$name" "no case of fixture $fixture ran (exit status $rc)"
		return
	fi
	# Not TAP (a plain script): its exit status is the result.
	case $rc in
	0) result PASS "$name" ;;
	4) skipped "$name" "exit status 4 (KSFT_SKIP): $(tail -1 "$log")" ;;
	124|137) result FAIL "$name" "timed out after ${PER_TEST_TIMEOUT}s" ;;
	*) result FAIL "$name" "exited with $rc" ;;
	esac
}

# A load beside the tests (tooling/guest-tiering-load.sh): started first,
# stopped after them, its result counted with theirs.
if [ -n "${PGHOT_BACKGROUND:-}" ]; then
	"$TOP/$PGHOT_BACKGROUND" start
fi

for g in $PGHOT_TESTS; do
	found=0 fixture=
	case "$g" in *:*) fixture=${g#*:} g=${g%%:*} ;; esac
	for t in "$SELFTESTS"/$g; do
		[ -e "$t" ] || continue
		found=1
		if [ ! -f "$t" ] || [ ! -x "$t" ]; then
			result FAIL "${t#"$SELFTESTS"/}" "not an executable file"
			continue
		fi
		run_one "$t" "$fixture"
	done
	[ $found = 1 ] || result FAIL "$g" "no such selftest in $SELFTESTS"
done

if [ -n "${PGHOT_BACKGROUND:-}" ]; then
	echo "# ---- $PGHOT_BACKGROUND stop"
	"$TOP/$PGHOT_BACKGROUND" stop | tee /tmp/pghot-background.log
	grep '^result: ' /tmp/pghot-background.log >> "$RESULTS"
fi

if [ "${PGHOT_HANGCHECK:-1}" = 1 ]; then
	echo "# ---- hang check"
	"$TOP/tooling/guest-hangcheck.sh" | tee /tmp/pghot-hangcheck.log
	grep '^result: ' /tmp/pghot-hangcheck.log >> "$RESULTS"
fi

pass=$(grep -c '^result: PASS ' "$RESULTS")
fail=$(grep -c '^result: FAIL ' "$RESULTS")
skip=$(grep -c '^result: SKIP ' "$RESULTS")
measure=$(grep -c '^result: MEASURE ' "$RESULTS")
echo "selftests: $pass passed, $fail failed, $skip skipped ($measure measurements, not counted)"
grep -E '^result: (SKIP|FAIL) ' "$RESULTS" | sed 's/^result: /  /'
rm -f "$RESULTS"
[ "$fail" = 0 ] && [ $((pass + skip + measure)) -gt 0 ]
