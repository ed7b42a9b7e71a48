#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: the whole suite. Static checks on this repository's kernel
# files, the kernel build, then boots of the tiered VM in which the
# built-in KUnit suites run at boot (parsed from the console with the
# kernel's KTAP parser, tooling/kunit-results.py) and the pghot kselftests
# run as root: one boot in the default record mode with every selftest;
# one of the second VM shape (tooling/vm.sh VM_SHAPE=cxl: nodes numbered
# differently, a CPU-less top-tier node, a CXL node that gains its first
# memory at run time) in precise mode (same kernel binary) with the pghot
# selftests whose outcome depends on the topology or the record mode; one
# with more CPUs and huge pages for the upstream migration and
# memory-hotplug tests, and a short one of the emulated CXL box
# (tooling/emu); make series and make series-check without builds
# (checkpatch and git am per patch) run beside the upstream boot.
#
# Every test case is one result (PASS, FAIL, SKIP; a measurement that
# cannot fail is MEASURE and not counted). In the VM a SKIP fails unless
# tooling/skips.allow lists it; each boot must show the KUnit suites of
# tooling/kunit-suites; a VM that crashes, hangs, reports a kernel problem
# or exits with an error is a failure of its own. Ends with
#	check: N passed, N failed, N skipped
# and the list of skips and failures, and the time of each phase.
#
# The kernel under test is a debug kernel (tooling/kconfig/debug.config:
# KASAN, lockdep, DEBUG_VM, DEBUG_ATOMIC_SLEEP, ...) built in out/build-debug;
# any report from it fails the boot. make demo builds the plain one.
# CHECK_BOOTS (default "default off cxl upstream emu") picks the boots; two
# more do not fit the time budget: precise (precise mode on the default
# shape) and cxl-all (every pghot selftest on the second shape, default
# mode; the CXL node is emulated as I/O memory and promotes about 7x more
# slowly than the others);
# CHECK_SERIES=0 leaves out the series step; CHECK_SERIES_BUILD=1 builds
# every patch in it (make series-check).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

export KBUILD=${KBUILD:-$OUT/build-debug}
export FRAGMENTS=${FRAGMENTS:-"$TOP/tooling/kconfig/pghot.config $TOP/tooling/kconfig/debug.config"}
CHECK_BOOTS=${CHECK_BOOTS:-default off cxl upstream emu}
RESULTS=$OUT/check-results	# "<STATUS> <boot>:<test>[ # why]"
: > "$RESULTS"

start=$(date +%s)
phase_name="" phase_start=$start phases=() known_reports=()
phase() {
	local now

	now=$(date +%s)
	[ -z "$phase_name" ] || phases+=("$(printf '%6ss  %s' $((now - phase_start)) "$phase_name")")
	phase_name=$1 phase_start=$now
	[ -z "$1" ] || log "[$((now - start))s] $1"
}

# Lines "result: STATUS ID[ # why]" on stdin, from boot or step $1, into
# $RESULTS. A SKIP is checked against tooling/skips.allow again here (the
# guest does it for the selftests; KUnit skips are only seen here).
collect() {
	local where=$1 line st id why

	while IFS= read -r line; do
		line=${line%$'\r'}
		case "$line" in 'result: '*) ;; *) continue ;; esac
		line=${line#result: }
		st=${line%% *}; line=${line#* }
		id=${line%% # *}; why=
		[ "$id" = "$line" ] || why=${line#* # }
		if [ "$st" = SKIP ] && [ "$where" != series ] &&
		   ! skip_allowed "$where" "$id" "$why"; then
			st=FAIL why="SKIP not allowed in the VM (tooling/skips.allow): $why"
		fi
		echo "$st $where:$id${why:+ # $why}" >> "$RESULTS"
	done
}

# add STATUS WHERE:ID [WHY]
add() { echo "$1 $2${3:+ # $3}" >> "$RESULTS"; }

vm_failure() {
	case $1 in
	125) echo "the VM timed out" ;;
	126) echo "the guest kernel reported a problem (BUG/WARNING/KASAN/lockdep/lockup)" ;;
	127) echo "the guest did not finish the command (crash or panic)" ;;
	*) echo "the guest command exited with $1" ;;
	esac
}

# The pghot selftests this repository has: each must be built and run.
PGHOT_SELFTESTS=$(cd "$TOP/tools/testing/selftests/mm" && ls pghot_*.c | sed 's/\.c$//' | tr '\n' ' ')

# One boot: KUnit at boot (unless $4 is nokunit), then the selftests $2,
# then the hang check. $3: extra kernel arguments. The caller may set
# vm.sh's environment (NODE_CPUS, VM_SHAPE), TOP_NODES/LOWER_NODES (the
# tiers the tiers test must find) and PRE (a guest command run first).
boot() {
	local name=$1 tests=$2 append=$3 kunit=1 log=$OUT/check-$1.log rc

	[ "${4:-}" != nokunit ] || kunit=0
	phase "VM ($name): $([ $kunit = 1 ] && echo 'KUnit at boot + ')kselftests $tests"
	for try in 1 2 3; do
		KUNIT=$kunit VMDIR=$OUT/vm-$name VM_APPEND="$append" \
			VM_TIMEOUT=${VM_TIMEOUT:-3000} "$TOP/tooling/vm.sh" \
			"${PRE:+$PRE; }PGHOT_BOOT=$name PGHOT_TOP_NODES='${TOP_NODES:-0-1}' PGHOT_LOWER_NODES='${LOWER_NODES:-2}' PGHOT_TESTS='$tests' tooling/guest-tests.sh" |
			tee "$log"
		rc=${PIPESTATUS[0]}
		# The known upstream report (tooling/known-reports.awk): the
		# boot proved nothing (the guest stops before the tests); boot
		# again, at most twice.
		[ "$rc" = 128 ] && [ $try -lt 3 ] || break
		cp "$OUT/vm-$name/console.log" "$OUT/vm-$name/console-known-report-$try.log"
		known_reports+=("$name")
		log "VM ($name): the known upstream report at boot; booting again"
	done
	collect "$name" < "$log"
	if [ $kunit = 1 ]; then
		python3 "$TOP/tooling/kunit-results.py" "$LINUX" "$OUT/vm-$name/console.log" \
			"$TOP/tooling/kunit-suites" > "$OUT/check-$name.kunit" 2> "$OUT/check-$name.kunit.log"
		grep -E '\[(FAILED|CRASHED|SKIPPED|ERROR)\]|Testing complete' "$OUT/check-$name.kunit.log" |
			sed 's/\x1b\[[0-9;]*m//g' | tail -20
		collect "$name" < "$OUT/check-$name.kunit"
	fi
	case $rc in
	0) ;;
	1) grep -q "^FAIL $name:" "$RESULTS" ||
		add FAIL "$name:vm" "guest-tests.sh failed without a failed test" ;;
	128) add FAIL "$name:vm" "the known upstream report at boot, three times in a row" ;;
	*) add FAIL "$name:vm" "$(vm_failure "$rc") (console: $OUT/vm-$name/console.log)" ;;
	esac
	log "VM ($name): $(grep -c "^PASS $name:" "$RESULTS") passed, $(grep -c "^FAIL $name:" "$RESULTS") failed, $(grep -c "^SKIP $name:" "$RESULTS") skipped"
}

wants() { case " $CHECK_BOOTS " in *" $1 "*) return 0 ;; esac; return 1; }

# make series and make series-check without builds, into
# out/check-series.log; its seconds into out/check-series.time.
series_step() {
	local t0=$SECONDS rc=0

	"$TOP/tooling/series.sh" > "$OUT/check-series.log" 2>&1 &&
	SERIES_BUILD=${CHECK_SERIES_BUILD:-0} "$TOP/tooling/series-check.sh" \
		>> "$OUT/check-series.log" 2>&1 || rc=1
	echo $((SECONDS - t0)) > "$OUT/check-series.time"
	return $rc
}

phase "tree";		"$TOP/tooling/assemble.sh" || exit 1
phase "static checks";	"$TOP/tooling/static-checks.sh" || exit 1
phase "kernel (debug)";	"$TOP/tooling/build.sh" || exit 1
phase "selftests";	"$TOP/tooling/build-selftests.sh" || exit 1

wants default && boot default "$PGHOT_SELFTESTS" ''
# pghot_mode=off: pghot out altogether, tiering mode promotes through the
# fault path alone (pghot_modes' off fixture; no pghot state to check for
# hangs).
wants off && PRE='export PGHOT_HANGCHECK=0' boot off 'pghot_modes:off' 'pghot_mode=off' nokunit
PRECISE_SELFTESTS='pghot_promote pghot_placement pghot_hotplug pghot_hwhint'
wants precise && boot precise "$PRECISE_SELFTESTS" 'pghot_mode=precise'
# The upstream migration and memory-hotplug tests must pass on the patched
# kernel too; mm/migration wants two CPUs more than the nodes it migrates
# between, so this boot has two CPUs on each of nodes 0 and 1, and huge
# pages on both so that its hugetlb cases run. With CHECK_TIERING_LOAD=1
# they run in tiering mode beside a promotion load
# (tooling/guest-tiering-load.sh), so that the patched fault path,
# migrate.c and kmigrated work while they do; the load's own result says
# it was promoted, by kmigrated, as move_pages() reads it. It makes the
# boot 477 s instead of 260 s, which make check's time budget has no room
# for by default.
#
# The series step (see the end) needs no VM, and this boot's tests judge
# no timing: it runs beside this boot (TCG leaves part of the second CPU
# idle), and is waited for before the next boot, whose tests do.
series_pid=
if [ "${CHECK_SERIES:-1}" = 1 ] && [ "${CHECK_SERIES_BUILD:-0}" = 0 ] &&
   wants upstream; then
	series_step & series_pid=$!
fi
upstream_pre=
[ "${CHECK_TIERING_LOAD:-0}" != 1 ] ||
	upstream_pre='export PGHOT_BACKGROUND=tooling/guest-tiering-load.sh'
wants upstream && NODE_CPUS=2 NODE0_MB=$UPSTREAM_NODE_MB NODE2_MB=$UPSTREAM_NODE_MB \
	PRE=$upstream_pre boot upstream "$UPSTREAM_TESTS" "$UPSTREAM_APPEND" nokunit
if [ -n "$series_pid" ]; then
	phase "series: waiting for it after the upstream boot"
	wait "$series_pid"
	series_rc=$?
fi
# Any tiered box: nodes 0 and 1 with CPUs and DRAM, 2 DRAM without CPUs
# (top tier), 3 and 4 lower tier; node 4 is a CXL type-3 device whose
# region the guest sets up, so it gains its first memory at run time
# (tooling/vm.sh, VM_SHAPE=cxl). In precise mode, with KUnit: where pages
# land (placement, tiers, targets), whole-node hotplug, and pghot_promote's
# global cases (the record mode, a kmigrated per lower-tier node, the
# debugfs values the topology allows). pghot_promote's promotion cases,
# hwhint, coverage, modes and fuzz do not depend on the shape and run in
# the default boot (cxl-all runs them all here too).
CXL_SELFTESTS='pghot_promote:global pghot_placement pghot_hotplug pghot_tiering'
boot_cxl() { VM_SHAPE=cxl TOP_NODES=0-2 LOWER_NODES=3-4 PRE=tooling/guest-cxl.sh boot "$@"; }
wants cxl && boot_cxl cxl "$CXL_SELFTESTS" 'pghot_mode=precise'
wants cxl-all && boot_cxl cxl-all "$PGHOT_SELFTESTS" '' nokunit

# The emulated CXL box (tooling/emu): the plugin builds and loads, slows
# node 2 by the configured ratio and its samples reach pghot.
if wants emu; then
	phase "VM (emu): emulated CXL box, tooling/emu/guest-check.sh"
	"$TOP/tooling/emu/check.sh"
	erc=$?
	collect emu < "$OUT/check-emu.log"
	# Why, in the summary: the helper's or vm.sh's last message.
	why=$(grep -E '^(pghot-emu|pghot): ' "$OUT/check-emu.log" | tail -1)
	grep -q '^result: ' "$OUT/check-emu.log" ||
		add FAIL emu:vm "no results (exit status $erc${why:+: $why}, console: $OUT/vm-emu/console.log)"
	[ "$erc" = 0 ] || grep -q "^FAIL emu:" "$RESULTS" ||
		add FAIL emu:vm "tooling/emu/check.sh exited with $erc without a failed check"
fi

# The series as it would be posted: make series (the series gives exactly
# the tree tested here) and make series-check without builds (every patch
# checkpatch-clean and applying with git am). A build per patch, W=1/sparse
# of the upstream files against the base tree and the configuration matrix
# do not fit make check's time budget on two cores: make series-check runs
# them (CHECK_SERIES_BUILD=1 here too).
if [ "${CHECK_SERIES:-1}" = 1 ]; then
	if [ -z "$series_pid" ]; then
		phase "series: make series + make series-check"
		series_step
		series_rc=$?
	fi
	log "series step: $(cat "$OUT/check-series.time" 2>/dev/null || echo '?') s of its own"
	if [ "$series_rc" = 0 ]; then
		add PASS series:series-check
	else
		tail -30 "$OUT/check-series.log"
		add FAIL series:series-check "see $OUT/check-series.log"
	fi
	grep -E '^pghot: (series|base|w1|matrix|0[0-9]+-)' "$OUT/check-series.log" | tail -24
	collect series < "$OUT/check-series.log"
fi
phase ""

pass=$(grep -c '^PASS ' "$RESULTS")
fail=$(grep -c '^FAIL ' "$RESULTS")
skip=$(grep -c '^SKIP ' "$RESULTS")
measure=$(grep -c '^MEASURE ' "$RESULTS")
echo "time per phase:"
printf '  %s\n' "${phases[@]}"
echo "  total $(( $(date +%s) - start ))s"
[ "$measure" = 0 ] || { echo "measurements (not counted as passes):"; grep '^MEASURE ' "$RESULTS" | sed 's/^MEASURE /  /'; }
[ ${#known_reports[@]} = 0 ] ||
	echo "booted again after the known upstream report (tooling/known-reports.awk): ${known_reports[*]}"
[ "$fail" = 0 ] || { echo "failed:"; grep '^FAIL ' "$RESULTS" | sed 's/^FAIL /  /'; }
[ "$skip" = 0 ] || { echo "skipped (tooling/skips.allow):"; grep '^SKIP ' "$RESULTS" | sed 's/^SKIP /  /'; }
skipped=$(sed -n 's/^SKIP \([^ ]*\).*/\1/p' "$RESULTS" | tr '\n' ' ')
echo "check: $pass passed, $fail failed, $skip skipped${skipped:+: ${skipped% }}"
[ "$fail" = 0 ]
