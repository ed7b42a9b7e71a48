#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test VM N times with 'true' and report failures and the median
# boot-to-exit time: tooling/vm-soak.sh [N]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=${1:-50}
times=() fails=0
for i in $(seq 1 "$n"); do
	t0=$(date +%s.%N)
	if ! VMDIR=$OUT/vm-soak "$TOP/tooling/vm.sh" true; then
		fails=$((fails + 1))
		cp "$OUT/vm-soak/console.log" "$OUT/vm-soak/failed-$i.log"
	fi
	times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
	printf '\rboot %d/%d, %d failed' "$i" "$n" "$fails" >&2
done
echo >&2
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
printf 'vm-soak: %d boots, %d failed, median boot-to-exit %.2f s\n' "$n" "$fails" "$median"
[ $fails = 0 ]
