#!/bin/sh
# Power for tools/labgrid/env-qemu.yaml's QEMU machine: `on` starts QEMU
# (q35 under TCG, OVMF with a fresh copy of its variables, the image as a
# USB stick with its writes thrown away, a VT-d unit, an NVMe and an edu)
# with its serial line a TCP server on 127.0.0.1:47011 that waits for
# labgrid's SerialDriver before the machine runs, so no byte of the boot is
# missed; `off` ends it. Run from the top of the tree; IOMMON_IMAGE names
# another image (default build/iommon.img).
set -eu
port=47011 # the env file's NetworkSerialPort port
state=build/labgrid-qemu
case ${1:-} in
on)
	"$0" off
	if ss -Hltn "sport = :$port" | grep -q .; then
		echo "qemu-power: something already listens on 127.0.0.1:$port" >&2
		exit 1
	fi
	mkdir -p "$state"
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$state/vars.fd"
	setsid qemu-system-x86_64 -machine q35 -accel tcg -m 1024 -display none -nodefaults -monitor none \
		-serial "tcp:127.0.0.1:$port,server=on,wait=on" -pidfile "$state/pid" \
		-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,unit=1,file="$state/vars.fd" \
		-drive if=none,id=stick,format=raw,snapshot=on,file="${IOMMON_IMAGE:-build/iommon.img}" \
		-device qemu-xhci,id=xhci -device usb-storage,bus=xhci.0,drive=stick,removable=on \
		-device intel-iommu,aw-bits=39 \
		-blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on -device nvme,drive=nvm0,serial=iommon0 \
		-device pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1 -device edu,bus=rp1 \
		>"$state/qemu.log" 2>&1 </dev/null &
	i=0
	until ss -Hltn "sport = :$port" | grep -q .; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $! 2>/dev/null; then
			echo "qemu-power: QEMU is not listening on $port after 10 s: $(cat "$state/qemu.log")" >&2
			exit 1
		fi
		sleep 0.1
	done
	;;
off)
	if [ -f "$state/pid" ]; then
		pid=$(cat "$state/pid")
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
		rm -f "$state/pid"
	fi
	;;
*)
	echo "usage: $0 on|off" >&2
	exit 2
	;;
esac
