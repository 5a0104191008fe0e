#!/usr/bin/env bash
# build.sh: make the vmbench guest image, the Linux guest of container-backed
# vcsim VMs (`make guest-image`). A minimal Debian (the machine's own release
# and apt sources, through mmdebstrap) with GNU coreutils and tar,
# openssh-server, MariaDB and PostgreSQL; guest-init starts them. Nothing of
# vmbench is in it: a campaign uploads its agent, as on a real VM.
#
# The tag is vmbench-guest:<first 12 hex digits of the recipe's SHA-256>
# (this script, packages, guest-init, tar, the suite and the apt sources): a
# build whose image exists already does nothing, so it is made once per
# machine and again only when the recipe changes. It prints the tag last.
#
# Needs root, dockerd running, and mmdebstrap (apt-get install docker.io
# mmdebstrap). Nothing is pulled from an image registry.
#
# build.sh --tag prints the tag the recipe makes and nothing else, building
# nothing (the tests look the image up by it: internal/containertest).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
suite=${GUEST_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}
sources=${GUEST_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
[ -r "$sources" ] || sources=/etc/apt/sources.list

die() { echo "build.sh: $*" >&2; exit 1; }
[ -r "$sources" ] || die "no apt sources at $sources (set GUEST_APT_SOURCES)"
digest=$( { cat "$here/build.sh" "$here/packages" "$here/guest-init" "$here/tar"; echo "$suite"; cat "$sources"; } |
	sha256sum | cut -c1-12)
tag=vmbench-guest:$digest
if [ "${1:-}" = --tag ]; then
	echo "$tag"
	exit 0
fi
[ $# -eq 0 ] || die "unknown argument $1 (build.sh builds the image; build.sh --tag prints its tag)"

command -v docker >/dev/null || die "docker not found (apt-get install docker.io; start dockerd as root)"
docker info >/dev/null 2>&1 || die "dockerd is not running (start it as root: dockerd &)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (apt-get install mmdebstrap)"

if docker image inspect "$tag" >/dev/null 2>&1; then
	echo "build.sh: $tag is up to date" >&2
	echo "$tag"
	exit 0
fi

include=$(grep -v '^[[:space:]]*\(#\|$\)' "$here/packages" | paste -sd, -)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
echo "build.sh: building $tag from Debian $suite ($include)" >&2
# Documentation, man pages and locales are left out; apt's lists are
# removed after the install (the guest installs nothing later).
mmdebstrap --variant=minbase --include="$include" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-include=/usr/share/locale/locale.alias' \
	--customize-hook="upload $here/guest-init /usr/local/sbin/guest-init" \
	--customize-hook='chmod 755 "$1/usr/local/sbin/guest-init"' \
	--customize-hook="upload $here/tar /usr/local/bin/tar" \
	--customize-hook='chmod 755 "$1/usr/local/bin/tar"' \
	--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
	"$suite" "$work/rootfs.tar" "$sources" >&2
docker import \
	-c 'CMD ["/usr/local/sbin/guest-init"]' \
	-m "vmbench guest image: images/guest (recipe $digest)" \
	"$work/rootfs.tar" "$tag" >/dev/null
size=$(docker image inspect -f '{{.Size}}' "$tag")
echo "build.sh: built $tag in $(($(date +%s) - start)) s, $((size / 1000000)) MB" >&2
echo "$tag"
