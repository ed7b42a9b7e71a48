#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is missing, boot the tiered VM, run the promotion
# selftest and show what moved. (The side-by-side benchmark replaces the
# selftest here once it exists.)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$TOP/tooling/assemble.sh"
"$TOP/tooling/build.sh"
"$TOP/tooling/build-selftests.sh"
"$TOP/tooling/vm.sh" '
numactl -H
echo; echo "memory tiers:"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	echo "  $(basename $t): nodes $(cat $t/nodelist)"
done
grep -E "^(pgpromote|pgdemote|numa_|pgmigrate_success|pghot_|hwhint_)" /proc/vmstat > /tmp/before
out/selftests/pghot_tiering
echo; echo "vmstat deltas:"
grep -E "^(pgpromote|pgdemote|numa_|pgmigrate_success|pghot_|hwhint_)" /proc/vmstat |
	awk "NR == FNR { b[\$1] = \$2; next }
	     { d = \$2 - b[\$1]; if (d) printf \"  %-28s %12d\n\", \$1, d }" /tmp/before -
'
