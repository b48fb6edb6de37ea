#!/bin/bash
# A local Debian 12 base image for building the Dockerfile where no image registry is
# reachable: `debootstrap --variant=minbase bookworm` from Debian's own packages, Python 3.11
# in a virtual environment first on PATH (like the official slim Python image: `python` and
# `pip` install into an environment of their own), then `podman import`.
#   deploy/docker/base.sh [TAG]     (default localhost/road-base:bookworm; needs root)
# Built once per machine: an existing TAG is reused. Then build with
#   podman build --build-arg BASE_IMAGE=TAG ...
set -euo pipefail
TAG="${1:-localhost/road-base:bookworm}"
MIRROR="${ROAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${ROAD_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"

# One builder at a time on a machine (a CI run and a developer's test may start together).
exec 9>"${TMPDIR:-/tmp}/road-base.lock"
flock 9
if podman image exists "$TAG"; then
    echo "base.sh: $TAG present, reused" >&2
    exit 0
fi

ROOT="$(mktemp -d "${TMPDIR:-/tmp}/road-base.XXXXXX")"
trap 'rm -rf "$ROOT"' EXIT
start=$(date +%s)
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    bookworm "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 || { tail -20 "$ROOT.log" >&2; exit 1; }
rm -f "$ROOT.log"
cat >"$ROOT/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
SOURCES
chroot "$ROOT" python3 -m venv /opt/python
# What the official images drop too: downloaded packages, package lists, documentation.
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* \
    "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/*
tar -C "$ROOT" --numeric-owner -c . | podman import \
    --change 'ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["python3"]' - "$TAG" >/dev/null
echo "base.sh: $TAG built in $(($(date +%s) - start)) s" >&2
