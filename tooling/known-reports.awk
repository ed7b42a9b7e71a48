# SPDX-License-Identifier: GPL-2.0
# Print a guest console without the one known upstream report that is not
# pghot's, so that tooling/vm.sh judges everything else as before. Each
# removed report is announced on stdout as one line
#	pghot-known-report: <name>
# so that the caller can tell the boot apart (its kernel is tainted and
# lockdep is off from then on: such a boot proves nothing and is run again,
# see tooling/vm.sh).
#
# x86-la57-identify-cpu: with 5-level paging (QEMU's -cpu max has LA57),
# identify_boot_cpu() clears boot_cpu_data.x86_capability (identify_cpu()
# memsets it) with interrupts on, before alternatives are patched. An
# interrupt taken in that window sees pgtable_l5_enabled(), which is
# cpu_feature_enabled(X86_FEATURE_LA57), false: KASAN's out-of-line check
# (instrumented atomics, e.g. the raw spinlock of handle_edge_irq) then
# computes KASAN_SHADOW_START for 4-level paging, finds the LA57 direct-map
# address (ff11...) below it, and reports a wild-memory-access by
# swapper/0/0 with identify_cpu() in the interrupted stack. Upstream x86
# code, before any pghot code runs; under TCG the window is wide enough to
# be hit now and then.
#
# Only a report with all of these is removed: "BUG: KASAN: wild-memory-access",
# an ff1... address, task swapper/0/0, identify_cpu and
# arch_cpu_finalize_init in its stack; from its opening to its closing
# line of "=" signs.

function flush(   i, known) {
	known = nblock > 0 && block ~ /BUG: KASAN: wild-memory-access/ &&
		block ~ /at addr ff1[0-9a-f]+ by task swapper\/0\/0/ &&
		block ~ /identify_cpu/ && block ~ /arch_cpu_finalize_init/ &&
		closed
	if (known) {
		print "pghot-known-report: x86-la57-identify-cpu"
	} else {
		for (i = 1; i <= nblock; i++)
			print lines[i]
	}
	nblock = 0; block = ""; closed = 0
}

# A KASAN report opens with a line of "=" signs, then "BUG: KASAN:".
/========================================/ && !inreport { sep = $0; havesep = 1; next }
/BUG: KASAN: / && !inreport {
	inreport = 1; nblock = 0; block = ""; closed = 0
	if (havesep) { lines[++nblock] = sep; havesep = 0 }
	lines[++nblock] = $0; block = block "\n" $0
	next
}
inreport {
	lines[++nblock] = $0; block = block "\n" $0
	if ($0 ~ /========================================/) { closed = 1; inreport = 0; flush() }
	next
}
havesep { print sep; havesep = 0 }
{ print }
END {
	if (havesep) print sep
	if (inreport) flush()
}
