#!/bin/sh
# deps.sh                       install the Debian packages iommon needs (every
#                               architecture), gnu-efi for arm64 and riscv64 and
#                               QEMU 10.0 into build/
# deps.sh gnu-efi-aa64 DEST     only the latter
# deps.sh gnu-efi-rv64 DEST     gnu-efi for riscv64, from Debian 13 (trixie:
#                               Debian 12 has none), unpacked in DEST
# deps.sh qemu10 DEST           Debian 13's QEMU 10.0 as Debian 12's
#                               bookworm-backports builds it, unpacked in DEST
#                               (the system's QEMU and apt are left alone);
#                               nothing where the system's QEMU is 10 already
# deps.sh firmware-trixie DEST  Debian 13's firmware (edk2 2025.02: OVMF, AAVMF,
#                               RISC-V EDK2; OpenSBI 1.6, U-Boot 2025.01), data
#                               packages unpacked in DEST (FIRMWARE=2025)
# deps.sh packages              the Debian package names this release gives
#                               the project's needs, one a line (nothing installed)
# As root: apt-get installs what is missing. Otherwise: print the command, fail.
# gnu-efi:arm64 is never installed: it is not Multi-Arch: same, and dpkg
# would remove the x86_64 gnu-efi for it. Its .deb is downloaded through a
# private apt state (lists and cache beside DEST, arm64 as the only
# architecture), without touching dpkg's architectures, and unpacked in DEST.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)

# What is fetched and unpacked is kept outside the checkout, in
# $IOMMON_CACHE/deps (default ~/.cache/iommon/deps), so neither make clean
# nor a fresh clone downloads it again; build/NAME is a link to it.
cache=${IOMMON_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/iommon}/deps
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac

# digest_folder APT-OPTION...: the cache folder for $name's $pkgs as apt's
# lists name them: the digest of their file names (which carry the
# version) and SHA256s
digest_folder() {
	# shellcheck disable=SC2086
	uris=$(apt-get -qq "$@" --print-uris download $pkgs) || return 1
	echo "$cache/$name-$(echo "$uris" | awk '{ print $2, $4 }' | sort | sha256sum | cut -c1-16)"
}

# cached_unpack NAME DEST WHAT APT-OPTION...: the packages $pkgs, through
# the private apt state the options name, unpacked once per set of .debs
# into $cache/NAME-DIGEST (a Debian update is a new folder); DEST becomes a
# link to it. apt's lists are refreshed when last asked more than six
# hours ago (a fresh clone's make deps within them needs no network), so
# an update is seen; when the archive cannot be reached the last folder
# made is used, saying so. One at a time for each NAME (flock): a second
# build waits and finds the first's.
cached_unpack() {
	name=$1 dest=$2 what=$3
	shift 3
	case $dest in /*) ;; *) dest=$PWD/$dest ;; esac
	mkdir -p "$cache"
	exec 9>"$cache/$name.lock"
	flock 9
	entry=""
	# lists asked for less than six hours ago, naming a folder made: no
	# need to ask the archive again (a fresh clone's make deps is then
	# offline); else they are refreshed
	if [ -n "$(find "$cache/$name.asked" -mmin -360 2>/dev/null)" ]; then
		entry=$(digest_folder "$@")
		[ -f "$entry/.stamp" ] || entry=""
	fi
	if [ -z "$entry" ]; then
		if apt-get -qq "$@" update && entry=$(digest_folder "$@"); then
			: >"$cache/$name.asked"
		else
			entry=$(cat "$cache/$name.last" 2>/dev/null || true)
			[ -n "$entry" ] && [ -f "$entry/.stamp" ] || { exec 9>&-; return 1; }
			echo "deps: the archive did not answer: $what as last fetched" >&2
		fi
	fi
	if [ -f "$entry/.stamp" ]; then
		echo "deps: $what: from the cache at $entry"
	else
		echo "deps: fetching $what (once, into the cache at $entry; not installed)"
		work=$(mktemp -d "$entry.work.XXXXXX")
		# shellcheck disable=SC2086
		if ! (cd "$work" && apt-get -qq "$@" download $pkgs); then
			rm -rf "$work"
			exec 9>&-
			return 1
		fi
		mkdir "$work/root"
		for deb in "$work"/*.deb; do
			dpkg-deb -x "$deb" "$work/root"
		done
		(cd "$work" && ls ./*.deb) >"$work/root/.stamp"
		rm -rf "$entry" # what a run cut short left (no stamp)
		mv -T "$work/root" "$entry"
		rm -rf "$work"
	fi
	echo "$entry" >"$cache/$name.last"
	exec 9>&-
	# a real folder (and its apt state beside it) is what builds before
	# the cache unpacked there
	[ -L "$dest" ] || rm -rf "$dest" "$dest.apt"
	mkdir -p "$(dirname "$dest")"
	ln -sfn "$entry" "$dest"
}

gnu_efi_aa64() {
	dest=$1
	[ -f "$dest/.stamp" ] && [ -f "$dest/usr/lib/crt0-efi-aarch64.o" ] && return 0
	apt=$cache/gnu-efi-aa64.apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	pkgs=gnu-efi:arm64
	cached_unpack gnu-efi-aa64 "$dest" "gnu-efi for arm64" -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
		-o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root || {
		echo "deps: could not download gnu-efi:arm64 from the Debian archive (network?); run:" >&2
		echo "  tools/deps.sh gnu-efi-aa64 $dest" >&2
		exit 1
	}
}

# Packages from Debian 13 (trixie) unpacked in DEST, never installed: a
# private apt state (lists and cache beside DEST, a sources list naming
# only trixie, whose Release is signed by a key Debian 12's keyring holds,
# no preferences, an empty dpkg status, so what the system has installed
# does not decide what is fetched), the packages of one architecture.
# trixie_unpack DEST ARCH STAMPFILE PKG...: nothing done when DEST/.stamp
# and DEST/STAMPFILE are there.
trixie_unpack() {
	dest=$1 arch=$2 probe=$3
	shift 3
	[ -f "$dest/.stamp" ] && [ -e "$dest/$probe" ] && return 0
	name=$(basename "$dest")
	apt=$cache/$name.apt # absolute: apt reads Dir::Etc paths below /etc/apt otherwise
	mirror=$(debian_mirror)
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
	: >"$apt/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$apt/sources.list"
	pkgs="$*"
	cached_unpack "$name" "$dest" "$pkgs ($arch) from $mirror trixie" \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::status="$apt/status" \
		-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$apt/parts" \
		-o APT::Architecture="$arch" -o APT::Architectures="$arch" -o APT::Sandbox::User=root || {
		echo "deps: could not download $pkgs from $mirror trixie (network?)" >&2
		return 1
	}
}

# gnu-efi for riscv64: Debian 12 has no riscv64 architecture, Debian 13
# does. Only its headers, crt0, linker script and static libraries are
# used: nothing from trixie runs here.
gnu_efi_rv64() {
	trixie_unpack "$1" riscv64 usr/lib/crt0-efi-riscv64.o gnu-efi || {
		echo "deps: run: tools/deps.sh gnu-efi-rv64 $1" >&2
		exit 1
	}
}

# Debian 13's firmware, as data (Architecture: all): edk2 2025.02's OVMF,
# AAVMF and RISC-V EDK2, OpenSBI 1.6 and U-Boot 2025.01, for FIRMWARE=2025
# (tools/qemu-run.sh) with any QEMU.
FIRMWARE_TRIXIE_PKGS="ovmf qemu-efi-aarch64 qemu-efi-riscv64 opensbi u-boot-qemu"
firmware_trixie() {
	trixie_unpack "$1" amd64 usr/share/qemu-efi-riscv64/RISCV_VIRT_CODE.fd $FIRMWARE_TRIXIE_PKGS
}

# The Debian mirror the machine's own apt sources name for its own release
# (one-line or deb822), else deb.debian.org.
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
codename=${codename:-bookworm}
debian_mirror() {
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$codename" '
			/^[ \t]*#/ { next }
			/^deb[ \t]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) break
				if ($(i + 1) == suite) { print $i; exit } next }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) found = 1 }
			/^[ \t]*$/ { if (found && uri) { print uri; exit } uri = ""; found = 0 }
			END { if (found && uri) print uri }' "$f"
	done | head -n 1
}

# QEMU 10.0 from bookworm-backports: its .debs through a private apt state
# (a sources list of that one suite, lists and cache beside DEST, no
# preferences), unpacked with dpkg-deb; run by tools/qemu-run.sh with
# QEMU=DEST (its ROMs first, then the system's).
QEMU10_PKGS="qemu-system-x86 qemu-system-arm qemu-system-riscv qemu-system-common qemu-system-data qemu-system-modules-opengl"
qemu10() {
	dest=$1
	# Debian 13's own QEMU is 10.0: QEMU=10 is then the system's (qemu-run.sh)
	case $(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version \([0-9]*\)\..*/\1/p') in
	10) return 0 ;;
	esac
	[ -f "$dest/.stamp" ] && [ -x "$dest/usr/bin/qemu-system-x86_64" ] && [ -x "$dest/usr/bin/qemu-system-aarch64" ] &&
		[ -x "$dest/usr/bin/qemu-system-riscv64" ] && return 0
	apt=$cache/qemu-10.0.apt
	mirror=$(debian_mirror)
	mirror=${mirror:-http://deb.debian.org/debian}
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts"
	: >"$apt/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-backports main" >"$apt/sources.list"
	pkgs=$QEMU10_PKGS
	cached_unpack qemu-10.0 "$dest" "QEMU 10.0 from $mirror bookworm-backports" \
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" -o Dir::State::status="$apt/status" \
		-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/parts" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$apt/parts" -o APT::Sandbox::User=root || {
		echo "deps: could not download QEMU 10.0 from $mirror bookworm-backports (network?); run:" >&2
		echo "  tools/deps.sh qemu10 $dest" >&2
		return 1
	}
}

# What the project needs, as names this release gives: a word is a package;
# "a|b" the first of them this release has (a name that changed between
# releases, or a version chosen from what the release's own clang is);
# "?p" only where the release has it (its suite cases skip, saying so,
# where it has not; qemu-system-riscv: Debian 13's QEMU 10.0 boots riscv64
# from the system, Debian 12's 7.2 has none and make deps unpacks 10.0's
# into build/qemu-10.0); "+p" from the release's backports where its main
# suite has none.
NEEDS="gcc libc6-dev make binutils ccache gnu-efi newlib-source libcmocka-dev clang libclang-rt-dev|libclang-rt-@CLANG@-dev ?clang-format-14
      qemu-system-x86 ovmf mtools gdisk xorriso xz-utils gnuplot-nox acpica-tools
      gcc-aarch64-linux-gnu qemu-system-arm qemu-efi-aarch64 ?qemu-system-riscv
      gcc-riscv64-linux-gnu u-boot-qemu opensbi debootstrap
      python3 python3-yaml perl libxml2-utils chromium
      +lava-dispatcher ?python3-labgrid python3-pytest python3-serial iproute2"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# the version apt would install from the lists it has, or nothing
candidate() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }
# the major version of the release's clang (1:14.0-55.7 -> 14; 1:19.0-63 -> 19)
clang_major() {
	v=$(dpkg-query -W -f='${Version}' clang 2>/dev/null || true)
	[ -n "$v" ] || v=$(candidate clang)
	v=${v#*:}
	echo "${v%%.*}"
}

# resolve [final]: sets want (names to install from the main suite), want_bpo
# (from backports) and lacking (names this release does not have). Before
# the lists are read (not final) an unknown name is taken as it stands.
resolve() {
	want="" want_bpo="" lacking=""
	cm=$(clang_major)
	for n in $NEEDS; do
		case $n in
		\?*) p=${n#\?}
			installed "$p" && continue
			if [ -n "$(candidate "$p")" ]; then want="$want $p"; else lacking="$lacking $p"; fi ;;
		+*) p=${n#+}
			installed "$p" && continue
			if [ -n "$(candidate "$p")" ] || [ "${1:-}" != final ]; then want="$want $p"; else want_bpo="$want_bpo $p"; fi ;;
		*\|*) alts=$(echo "$n" | sed "s/@CLANG@/$cm/g; s/|/ /g") ok=""
			for p in $alts; do installed "$p" && ok=$p && break; done
			[ -n "$ok" ] && continue
			for p in $alts; do [ -n "$(candidate "$p")" ] && ok=$p && break; done
			want="$want ${ok:-${alts%% *}}" ;;
		*) installed "$n" || want="$want $n" ;;
		esac
	done
}

if [ "${1:-}" = packages ]; then
	resolve final
	for p in $want; do echo "$p"; done
	for p in $want_bpo; do echo "$p ($codename-backports)"; done
	for p in $lacking; do echo "$p (not in $codename: see NEEDS in tools/deps.sh for what stands in)"; done
	exit 0
fi
if [ "${1:-}" = gnu-efi-aa64 ]; then
	gnu_efi_aa64 "$2"
	exit 0
fi
if [ "${1:-}" = gnu-efi-rv64 ]; then
	gnu_efi_rv64 "$2"
	exit 0
fi
if [ "${1:-}" = qemu10 ]; then
	qemu10 "$2" || exit 1
	exit 0
fi
if [ "${1:-}" = mirror ]; then
	m=$(debian_mirror)
	echo "${m:-http://deb.debian.org/debian}"
	exit 0
fi
if [ "${1:-}" = firmware-trixie ]; then
	firmware_trixie "$2" || exit 1
	exit 0
fi

resolve
if [ -n "$want" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "iommon needs these Debian packages:$want" >&2
		echo "run as root:  apt-get update && apt-get install -y --no-install-recommends$want" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	resolve final
	# a name only the release's backports carry: that suite, from the
	# mirror the system's own sources name (apt pins backports below the
	# release, so nothing else moves to it)
	if [ -n "$want_bpo" ] && [ -z "$(apt-cache policy | grep -F " $codename-backports/main")" ]; then
		mirror=$(debian_mirror)
		echo "deps: adding $codename-backports (${mirror:-http://deb.debian.org/debian}) to apt's sources for:$want_bpo"
		printf 'Types: deb\nURIs: %s\nSuites: %s-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"${mirror:-http://deb.debian.org/debian}" "$codename" >/etc/apt/sources.list.d/iommon-backports.sources
		apt-get update -qq
	fi
	if [ -n "$want" ]; then
		echo "deps: installing$want"
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $want >/dev/null
	fi
	if [ -n "$want_bpo" ]; then
		echo "deps: installing from $codename-backports:$want_bpo"
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends -t "$codename-backports" $want_bpo >/dev/null ||
			echo "deps: warning: could not install$want_bpo from $codename-backports: their suite cases skip" >&2
	fi
	[ -n "$lacking" ] && echo "deps: $codename has none of:$lacking (what stands in for each: tools/deps.sh, NEEDS)"
	# the suite runs LAVA jobs with lava-run alone; the worker daemon the
	# package enables would wait for a LAVA server nobody configured
	case " $want $want_bpo " in
	*" lava-dispatcher "*)
		if [ -d /run/systemd/system ] && systemctl is-enabled -q lava-worker 2>/dev/null; then
			systemctl disable -q --now lava-worker && echo "deps: lava-worker disabled (iommon runs lava-run, no worker)"
		fi
		;;
	esac
fi
gnu_efi_aa64 "$here/build/gnu-efi-aa64"
gnu_efi_rv64 "$here/build/gnu-efi-rv64"
# only make test's second pass needs it: without it make run still runs,
# and make test fails those boots naming the missing QEMU
qemu10 "$here/build/qemu-10.0" || echo "deps: warning: no QEMU 10.0 in build/qemu-10.0: make test's QEMU 10.0 boots will fail" >&2
# Debian 13's firmware beside the release's own (FIRMWARE=2025), and on it
# riscv64's EDK2, which Debian 12 does not package
firmware_trixie "$here/build/firmware-trixie" ||
	echo "deps: warning: no firmware in build/firmware-trixie: make test's edk2 2025.02 boots will fail" >&2
