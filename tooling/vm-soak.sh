#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test VM N times with 'true' and report failures and the median
# boot-to-exit time: tooling/vm-soak.sh [N]
# KBUILD picks the kernel (make vm-soak-debug: the debug kernel of make
# check); KUNIT=1 runs the KUnit suites at boot as make check does. A boot
# that only hit the known upstream report (tooling/known-reports.awk, vm.sh
# exit status 128) is counted apart from the failures; make check boots
# again after one.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=${1:-50}
times=() fails=0 known=0
for i in $(seq 1 "$n"); do
	t0=$(date +%s.%N)
	VMDIR=$OUT/vm-soak "$TOP/tooling/vm.sh" true
	rc=$?
	case $rc in
	0) ;;
	128) known=$((known + 1))
	     cp "$OUT/vm-soak/console.log" "$OUT/vm-soak/known-$i.log" ;;
	*) fails=$((fails + 1))
	   cp "$OUT/vm-soak/console.log" "$OUT/vm-soak/failed-$i.log" ;;
	esac
	times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
	printf '\rboot %d/%d, %d failed, %d known upstream report' "$i" "$n" "$fails" "$known" >&2
done
echo >&2
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
printf 'vm-soak: %d boots of %s, %d failed, %d with the known upstream report, median boot-to-exit %.2f s\n' \
	"$n" "${KBUILD:-$OUT/build}" "$fails" "$known" "$median"
[ $fails = 0 ]
