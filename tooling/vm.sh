#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the built kernel in the tiered test VM, run a command as root in the
# guest, print its output and exit with its exit status:
#	tooling/vm.sh 'numactl -H'
# The guest's root is the host's / over 9p, read-only; out/ is mounted
# read-write at the same path, so results written there reach the host. A guest panic, oops, warning or hang is a
# failure, whatever the command returned (exit status 125 timeout, 126 a
# kernel report, 127 no result; 128 the one known upstream report of
# tooling/known-reports.awk and nothing else: boot again).
#
# Shape (SPEC §4): node 0 and 1 each one CPU and DRAM, node 2 CPU-less
# memory that HMAT describes as slower, so memory-tiers puts it below.
# Node 2 also has a DIMM (NODE2_DIMM_MB, 0 for none) that is hot-plugged at
# boot and onlined movable, so that part of it can always go offline.
# Sizes in MiB: NODE0_MB, NODE1_MB, NODE2_MB. CPUs on node 0 and on node 1:
# NODE_CPUS (default 1 each). Extra kernel args: VM_APPEND.
# The built-in KUnit suites run at boot only with KUNIT=1 (make check).
#
# VM_SHAPE=cxl is a second shape, numbered differently: nodes 0 and 1 with
# CPUs and DRAM (NODE0_MB, NODE1_MB), node 2 CPU-less DRAM in the top tier
# (NODE2_MB, 512), node 3 CPU-less memory that HMAT describes as slower
# (NODE3_MB, 1024), and a CXL type-3 memory device of CXL_MB (512) behind a
# CXL host bridge and fixed memory window, which Linux gives node 4. Node 4
# has no memory at boot: tooling/guest-cxl.sh sets up a region whose
# dax/kmem memory then comes online in a lower tier of its own, as with a
# CXL memory expander on a real box.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: vm.sh 'command ...'"
KBUILD=${KBUILD:-$OUT/build}
KERNEL=${KERNEL:-$KBUILD/arch/x86/boot/bzImage}
VM_SHAPE=${VM_SHAPE:-default}
NODE0_MB=${NODE0_MB:-2048}
NODE1_MB=${NODE1_MB:-1024}
if [ "$VM_SHAPE" = cxl ]; then
	NODE2_MB=${NODE2_MB:-512}
	NODE3_MB=${NODE3_MB:-1024}
	NODE2_DIMM_MB=0
	CXL_MB=${CXL_MB:-512}
else
	NODE2_MB=${NODE2_MB:-2048}
	NODE2_DIMM_MB=${NODE2_DIMM_MB:-512}
fi
NODE_CPUS=${NODE_CPUS:-1}
# The CPUs of the node whose first CPU is $1, as QEMU wants them.
cpu_range() {
	if [ "$NODE_CPUS" = 1 ]; then echo "$1"; else echo "$1-$(($1 + NODE_CPUS - 1))"; fi
}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
VMDIR=${VMDIR:-$OUT/vm}
[ -f "$KERNEL" ] || die "no kernel at $KERNEL; run 'make kernel'"
command -v qemu-system-x86_64 >/dev/null || die "qemu is missing; run 'make setup'"

# ---- Emulated CXL box (tooling/emu/README); off unless asked for. ----
# VM_SLOWMEM=1: every guest load/store to node 2 (boot memory and DIMM)
# busy-waits in a QEMU TCG plugin so that node 2's latency is
# VM_SLOWMEM_RATIO (default HMAT 250/80) times node 0's as the guest's
# pointer-chase probe measures it: calibrated at the start of the command
# (out: $VMDIR/emu-calib.json), or VM_SLOWMEM_NS extra ns per access.
# VM_SAMPLER=1: the IBS-like sampler, armed by 'pghot-emu feed' in the
# guest; VM_SAMPLER_PERIOD=N also runs 'pghot-emu feed --period N' for the
# command's lifetime (VM_SAMPLER_ARGS: more feed options). Plugin
# statistics: $VMDIR/emu-stats.json. VM_SLOWMEM_RANGES overrides the
# slow guest-physical ranges (hex START-END, space separated). Only user
# code is instrumented unless VM_SLOWMEM_KERNEL=1.
emu=()
if [ "${VM_SLOWMEM:-0}" = 1 ] || [ "${VM_SAMPLER:-0}" = 1 ] ||
   [ -n "${VM_SAMPLER_PERIOD:-}" ]; then
	[ "$VM_SHAPE" = default ] ||
		die "VM_SLOWMEM/VM_SAMPLER know the default shape's memory map only"
	"$TOP/tooling/emu/build.sh" || exit 1
	mkdir -p "$VMDIR"
	rm -f "$VMDIR/emu.sock" "$VMDIR/emu-stats.json" "$VMDIR/emu-calib.json"
	# QEMU's pc machine: RAM (nodes in order) below 4 GiB up to 3 GiB
	# when it needs more than 3.5 GiB, the rest from 4 GiB; DIMMs from
	# the next GiB boundary after that.
	emu_mem=$((NODE0_MB + NODE1_MB + NODE2_MB)) emu_low=$emu_mem
	[ $emu_mem -lt 3584 ] || emu_low=3072
	emu_gpa() { if [ "$1" -lt $emu_low ]; then echo "$1"; else echo $(($1 - emu_low + 4096)); fi; }
	emu_a=$((NODE0_MB + NODE1_MB)) emu_b=$emu_mem emu_r=()
	if [ $emu_a -lt $emu_low ] && [ $emu_b -gt $emu_low ]; then
		emu_r+=("$emu_a $emu_low" "4096 $(emu_gpa $emu_b)")
	else
		emu_r+=("$(emu_gpa $emu_a) $(( $(emu_gpa $emu_a) + NODE2_MB ))")
	fi
	emu_top=$((emu_mem > emu_low ? emu_mem - emu_low + 4096 : 4096))
	emu_d=$(( (emu_top + 1023) / 1024 * 1024 ))
	[ "$NODE2_DIMM_MB" -gt 0 ] && emu_r+=("$emu_d $((emu_d + NODE2_DIMM_MB))")
	emu_args=""
	if [ -n "${VM_SLOWMEM_RANGES:-}" ]; then
		for r in $VM_SLOWMEM_RANGES; do emu_args+=",slow=$r"; done
	else
		for r in "${emu_r[@]}"; do
			read -r emu_s emu_e <<< "$r"
			emu_args+=$(printf ',slow=%x-%x' $((emu_s << 20)) $((emu_e << 20)))
		done
	fi
	emu_k=off; [ "${VM_SLOWMEM_KERNEL:-0}" = 1 ] && emu_k=on
	emu_args+=",delay_ns=${VM_SLOWMEM_NS:-0},kernel=$emu_k"
	emu_args+=",sock=$VMDIR/emu.sock,stats=$VMDIR/emu-stats.json"
	emu=(-plugin "$OUT/emu/pghot-emu-plugin.so$emu_args"
	     -chardev "socket,id=emu,path=$VMDIR/emu.sock,server=on,wait=off"
	     -device virtserialport,chardev=emu,name=org.pghot.emu)
	emu_pre="export PGHOT_EMU=$OUT/emu/pghot-emu PGHOT_EMU_STATS=$VMDIR/emu-stats.json"
	if [ "${VM_SLOWMEM:-0}" = 1 ] && [ -z "${VM_SLOWMEM_NS:-}" ]; then
		emu_pre+="
\$PGHOT_EMU calibrate -r ${VM_SLOWMEM_RATIO:-3.125} > $VMDIR/emu-calib.json || exit 1
echo \"emu: \$(cat $VMDIR/emu-calib.json)\" >&2"
	fi
	emu_post=""
	if [ -n "${VM_SAMPLER_PERIOD:-}" ]; then
		emu_pre+="
\$PGHOT_EMU feed --period $VM_SAMPLER_PERIOD ${VM_SAMPLER_ARGS:-} --json $VMDIR/emu-feed.json & emu_feed=\$!"
		emu_post="kill \$emu_feed; wait \$emu_feed"
	fi
	set -- "$emu_pre
( $* ); emu_rc=\$?
$emu_post
exit \$emu_rc"
fi

mkdir -p "$VMDIR"
rm -f "$VMDIR/rc"
# The guest's page-cache filesystem (tooling/guest-init): empty each boot.
rm -rf "$VMDIR/files"
mkdir -p "$VMDIR/files"
printf '%s\n' "$*" > "$VMDIR/cmd.sh"
console=$VMDIR/console.log

mem=$((NODE0_MB + NODE1_MB + NODE2_MB))
memopt=${mem}M dimm=() shape=() shape_last=()
if [ "$NODE2_DIMM_MB" -gt 0 ]; then
	memopt="${mem}M,slots=2,maxmem=$((mem + NODE2_DIMM_MB))M"
	dimm=(-object memory-backend-ram,id=d2,size="${NODE2_DIMM_MB}M"
	      -device pc-dimm,id=dimm2,memdev=d2,node=2)
fi
# HMAT: local DRAM 80 ns / 40 GB/s, remote DRAM 140 ns / 30 GB/s,
# node 2 ("CXL") 250 ns / 16 GB/s from either socket.
hmat=()
for ini in 0 1; do
	for tgt in 0 1 2; do
		if [ $tgt = $ini ]; then lat=80 bw=40G
		elif [ $tgt = 2 ]; then lat=250 bw=16G
		else lat=140 bw=30G
		fi
		hmat+=(-numa "hmat-lb,initiator=$ini,target=$tgt,hierarchy=memory,data-type=access-latency,latency=$lat"
		       -numa "hmat-lb,initiator=$ini,target=$tgt,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
	done
done
shape=(-machine pc,hmat=on -accel tcg,thread=multi -cpu max
	-m "$memopt" -smp $((2 * NODE_CPUS)),sockets=2,cores="$NODE_CPUS",threads=1
	-object memory-backend-ram,id=m0,size="${NODE0_MB}M"
	-object memory-backend-ram,id=m1,size="${NODE1_MB}M"
	-object memory-backend-ram,id=m2,size="${NODE2_MB}M"
	-numa node,nodeid=0,memdev=m0,cpus="$(cpu_range 0)"
	-numa node,nodeid=1,memdev=m1,cpus="$(cpu_range "$NODE_CPUS")"
	-numa node,nodeid=2,memdev=m2,initiator=0
	-numa dist,src=0,dst=1,val=32
	-numa dist,src=0,dst=2,val=50
	-numa dist,src=1,dst=2,val=60
	"${hmat[@]}" "${dimm[@]}")

# The cxl shape. Linux numbers the nodes with CPUs first (SRAT order), so
# the numbering differs from the default shape in the CPU-less nodes: 2 is
# DRAM without CPUs (top tier), 3 is slower memory (HMAT, lower tier) and
# 4, the CXL fixed memory window, has no memory until a region is set up.
if [ "$VM_SHAPE" = cxl ]; then
	hmat=()
	for ini in 0 1; do
		for tgt in 0 1 2 3; do
			# Node 2 is DRAM of socket 1 without CPUs of its own.
			if [ $tgt = 3 ]; then lat=250 bw=16G
			elif [ $tgt = $ini ] || [ $tgt$ini = 21 ]; then lat=80 bw=40G
			else lat=140 bw=30G
			fi
			hmat+=(-numa "hmat-lb,initiator=$ini,target=$tgt,hierarchy=memory,data-type=access-latency,latency=$lat"
			       -numa "hmat-lb,initiator=$ini,target=$tgt,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw")
		done
	done
	shape=(-machine q35,hmat=on,cxl=on -accel tcg,thread=multi -cpu max
		-m "$((mem + NODE3_MB))M,slots=2,maxmem=$((mem + NODE3_MB + CXL_MB))M"
		-smp $((2 * NODE_CPUS)),sockets=2,cores="$NODE_CPUS",threads=1
		-object memory-backend-ram,id=m0,size="${NODE0_MB}M"
		-object memory-backend-ram,id=m1,size="${NODE1_MB}M"
		-object memory-backend-ram,id=m2,size="${NODE2_MB}M"
		-object memory-backend-ram,id=m3,size="${NODE3_MB}M"
		-numa node,nodeid=0,memdev=m0,cpus="$(cpu_range 0)"
		-numa node,nodeid=1,memdev=m1,cpus="$(cpu_range "$NODE_CPUS")"
		-numa node,nodeid=2,memdev=m2,initiator=1
		-numa node,nodeid=3,memdev=m3,initiator=0
		-numa dist,src=0,dst=1,val=32
		-numa dist,src=0,dst=2,val=32
		-numa dist,src=0,dst=3,val=50
		-numa dist,src=1,dst=2,val=12
		-numa dist,src=1,dst=3,val=60
		-numa dist,src=2,dst=3,val=60
		"${hmat[@]}"
		-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G)
	# Last: devices without a bus= go to the newest PCI bus, which must
	# not be the CXL host bridge.
	shape_last=(-object memory-backend-ram,id=cxlmem,share=on,size="${CXL_MB}M"
		-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
		-device cxl-rp,port=0,bus=cxl.1,id=cxlrp0,chassis=0,slot=2
		-device cxl-type3,bus=cxlrp0,volatile-memdev=cxlmem,id=cxl-vmem0)
fi

# no_timer_check: the boot-time check that the emulated PIT reaches the
# IO-APIC times a few ticks; on a loaded host TCG delivers them late and
# the kernel panics ("IO-APIC + timer doesn't work!", seen here). It checks
# the emulator, not the kernel under test.
append="no_timer_check console=ttyS0 root=pghotroot rootfstype=9p ro
rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose
init=$TOP/tooling/guest-init panic=-1 oops=panic softlockup_panic=1
loglevel=7 memhp_default_state=online_movable kunit.enable=${KUNIT:-0} pghot_top=$TOP pghot_out=$OUT pghot_vmdir=$VMDIR ${VM_APPEND:-}"

timeout --foreground -k 10 "$VM_TIMEOUT" qemu-system-x86_64 \
	"${shape[@]}" \
	-kernel "$KERNEL" -append "$(echo $append)" \
	-virtfs local,path=/,mount_tag=pghotroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$TOP",mount_tag=pghottop,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$OUT",mount_tag=pghotout,security_model=none \
	-virtfs local,path="$VMDIR/files",mount_tag=pghotfiles,security_model=none \
	-device virtio-serial-pci -chardev stdio,id=cmdout,signal=off \
	-device virtconsole,chardev=cmdout \
	-serial file:"$console" -display none -monitor none \
	-no-reboot -nodefaults "${emu[@]}" "${shape_last[@]}" </dev/null
qrc=$?

rc=$(cat "$VMDIR/rc" 2>/dev/null)
# Everything but the known upstream report (tooling/known-reports.awk); a
# console that dropped messages may have lost a report in the flood.
checked=$(awk -f "$TOP/tooling/known-reports.awk" "$console")
known=$(echo "$checked" | sed -n 's/^pghot-known-report: //p' | sort -u)
bad=$(echo "$checked" | grep -v '^pghot-known-report: ' |
	grep -E -m5 'Kernel panic|Oops|BUG:|WARNING:|KASAN|UBSAN|possible circular|sleeping function called|soft lockup|hung_task|blocked for more than|detected stall|Call Trace|printk messages dropped')
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	log "VM timed out after ${VM_TIMEOUT}s (console: $console)"; tail -20 "$console" >&2; exit 125
fi
if [ -n "$bad" ]; then
	log "guest kernel reported a problem (console: $console):"
	echo "$bad" | sed 's/^/pghot:   /' >&2
	exit 126
fi
# The kernel is tainted and lockdep off from the known report on: this
# boot proves nothing either way; the caller boots again (exit 128).
if [ -n "$known" ]; then
	log "known upstream report at boot ($known, see tooling/known-reports.awk); this boot proves nothing (console: $console)"
	exit 128
fi
if [ -z "$rc" ]; then
	log "guest did not finish the command (qemu rc $qrc, console: $console)"
	tail -20 "$console" >&2
	exit 127
fi
exit "$rc"
