#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series' selftests (tools/testing/selftests/mm/pghot_*.c of this
# repository) against the kselftest headers of the base tree, into
# $OUT/selftests/<name>, and the benchmark pghot-bench.c beside them (its
# hyphen keeps it out of the pghot_* tests the runner runs); and the
# upstream tests make check runs for regressions (mm/migration and
# memory-hotplug/mem-on-off-test.sh) into $OUT/selftests/upstream/, against
# the assembled tree's exported UAPI headers:
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

# Upstream regression tests. headers_install is not a kernel build, but it
# runs make in the tree: take the build lock all the same.
UP=$DEST/upstream
HDRS=$OUT/headers
mkdir -p "$UP"
(
	flock 9
	make -s -C "$LINUX" O="$OUT/build-headers" headers_install \
		INSTALL_HDR_PATH="$HDRS"
) 9> "$BUILD_LOCK"
log "CC upstream mm/migration"
(cd "$SELFTESTS" && "$CC" -O2 -Wall -isystem "$HDRS/include" -I. -Imm \
	-o "$UP/migration" mm/migration.c mm/vm_util.c mm/hugepage_settings.c \
	-lnuma -lpthread)
install -m 755 "$SELFTESTS/memory-hotplug/mem-on-off-test.sh" "$UP/"
