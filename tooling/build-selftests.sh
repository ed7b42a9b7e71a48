#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series' selftests (tools/testing/selftests/mm/pghot_*.c of this
# repository) against the kselftest headers of the base tree, into
# $OUT/selftests/<name>, and the benchmark pghot-bench.c beside them (its
# hyphen keeps it out of the pghot_* tests the runner runs):
# tooling/build-selftests.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SELFTESTS=$LINUX/tools/testing/selftests
DEST=$OUT/selftests
CC=${CC:-gcc}
CFLAGS=(-O2 -Wall -Wextra -Werror -I"$SELFTESTS" -I"$SELFTESTS/mm")
LDLIBS=(-lnuma -lpthread)

[ -f "$SELFTESTS/kselftest_harness.h" ] || die "no kselftest headers in $SELFTESTS"
mkdir -p "$DEST"

shopt -s nullglob
srcs=("$TOP"/tools/testing/selftests/mm/pghot_*.c)
[ ${#srcs[@]} -gt 0 ] || die "no tools/testing/selftests/mm/pghot_*.c"
for src in "${srcs[@]}"; do
	name=$(basename "$src" .c)
	log "CC $name"
	"$CC" "${CFLAGS[@]}" -o "$DEST/$name" "$src" "${LDLIBS[@]}"
done

# The benchmark is plain C on libnuma, without kselftest headers, so that it
# builds the same way on a real tiered box.
bench=$TOP/tools/testing/selftests/mm/pghot-bench.c
[ -f "$bench" ] || die "no $bench"
log "CC pghot-bench"
"$CC" -O2 -Wall -Wextra -Werror -o "$DEST/pghot-bench" "$bench" -lnuma -lpthread -lm
