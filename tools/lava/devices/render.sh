#!/bin/sh
# Renders qemu-iommon.jinja2 into qemu-iommon.yaml with lava-server's own
# device-type templates, taken from Debian's lava-server package (fetched
# with apt-get download into build/, never installed: it would bring a
# database and a web server). Run from anywhere; python3-jinja2 renders.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
work=$top/build/lava-server
mkdir -p "$work"
cd "$work"
ls lava-server_*.deb >/dev/null 2>&1 || apt-get download lava-server
# unpacked outside build/: make reads every *.d under build/ as dependencies,
# and the package has a directory so named
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x lava-server_*.deb "$x"
templates=$x/usr/share/lava-server/device-types
/usr/bin/python3 - "$here" "$templates" "$(dpkg-deb -f lava-server_*.deb Version)" <<'PY'
import re, sys
import jinja2
here, templates, version = sys.argv[1:]
env = jinja2.Environment(loader=jinja2.FileSystemLoader([here, templates]), trim_blocks=True, autoescape=False)
body = env.get_template("qemu-iommon.jinja2").render(arch="amd64")
body = re.sub(r"\n{3,}", "\n\n", body).lstrip("\n")
head = """# The LAVA device dictionary qemu-iommon.jinja2, rendered with lava-server
# %s's device-type templates (qemu.jinja2 over base.jinja2) for a job
# whose context is arch: amd64: what lava-run reads as --device. Made by
#   tools/lava/devices/render.sh   (lava-server's templates, from its .deb)
# and kept here so the suite needs no LAVA server. Generated: edit the
# .jinja2 and render again.
""" % version
open(here + "/qemu-iommon.yaml", "w").write(head + body)
PY
echo "render: $here/qemu-iommon.yaml from lava-server $(dpkg-deb -f lava-server_*.deb Version)"
