#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make measure-core: the core's cost figures, one boot per record mode on
# the same kernel binary: bytes of record memory per lower-tier page,
# kmigrated CPU time with 1 GiB idle on node 2, and (from KUnit) the median
# cost of one record update.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for mode in default precise; do
	echo "== pghot_mode=$mode"
	KUNIT=1 VMDIR=$OUT/vm-measure-$mode VM_APPEND="pghot_mode=$mode kunit.filter_glob=pghot-record.pghot_test_record_cost" \
		"$TOP/tooling/vm.sh" tooling/guest-measure-core.sh
	grep -o 'pghot_record_touch: median.*' "$OUT/vm-measure-$mode/console.log" |
		sed 's/^/KUnit: /'
done
