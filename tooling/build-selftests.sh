#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series' selftests (tools/testing/selftests/mm/pghot_*.c) and the
# benchmark pghot-bench.c (its hyphen keeps it out of the pghot_* tests the
# runner runs) the way a user does, with the kselftest build of the
# assembled tree (tools/testing/selftests/mm/Makefile, what
# `make -C tools/testing/selftests TARGETS=mm` runs), into
# $OUT/selftests/<name>; each must come out of it. They are also compiled
# with -Wextra -Werror on their own, which the kselftest build does not
# ask for. And the
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

[ -f "$SELFTESTS/kselftest_harness.h" ] || die "no kselftest headers in $SELFTESTS"
mkdir -p "$DEST"

shopt -s nullglob
srcs=("$TOP"/tools/testing/selftests/mm/pghot_*.c)
[ ${#srcs[@]} -gt 0 ] || die "no tools/testing/selftests/mm/pghot_*.c"
names=()
for src in "${srcs[@]}"; do
	name=$(basename "$src" .c)
	names+=("$name")
	log "CC -Wextra -Werror $name"
	"$CC" "${CFLAGS[@]}" -fsyntax-only "$src"
done
# The benchmark is plain C on libnuma, without kselftest headers, so that it
# builds the same way on a real tiered box.
bench=$TOP/tools/testing/selftests/mm/pghot-bench.c
[ -f "$bench" ] || die "no $bench"
log "CC -Wextra -Werror pghot-bench"
"$CC" -O2 -Wall -Wextra -Werror -fsyntax-only "$bench"
names+=(pghot-bench)

# The kselftest build. It runs make in the tree: take the build lock.
for name in "${names[@]}"; do
	grep -qx "TEST_GEN_FILES += $name" "$SELFTESTS/mm/Makefile" ||
		die "$name is not listed in tools/testing/selftests/mm/Makefile"
done
log "kselftest build (tools/testing/selftests/mm): ${names[*]}"
(
	flock 9
	rm -f "${names[@]/#/$DEST/}"
	make -s -C "$SELFTESTS/mm" OUTPUT="$DEST" "${names[@]/#/$DEST/}"
) 9> "$BUILD_LOCK"
for name in "${names[@]}"; do
	[ -x "$DEST/$name" ] || die "the kselftest build made no $DEST/$name"
done

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
