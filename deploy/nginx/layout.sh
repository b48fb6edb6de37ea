#!/bin/sh
# Lay out an nginx folder for this deploy: the repo's own files (linked, used verbatim)
# plus the two files that differ per environment.
#
#     deploy/nginx/layout.sh PREFIX LISTEN UPSTREAM...
#     nginx -p PREFIX/ -c PREFIX/conf/nginx.conf -g 'daemon off;'
#
# LISTEN is what nginx listens on ("8080", "127.0.0.1:8630"); each UPSTREAM is a replica
# ("app1:8501", "127.0.0.1:8631"). Used by deploy/docker/start.sh (the image and Compose)
# and by tests/test_scale_out.py and tests/test_deploy.py.
set -eu
if [ "$#" -lt 3 ]; then
    echo "usage: $0 PREFIX LISTEN UPSTREAM..." >&2
    exit 2
fi
prefix=$1
listen=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$prefix/conf" "$prefix/logs" "$prefix/temp"
for f in nginx.conf road.conf headers.conf; do
    ln -sf "$here/$f" "$prefix/conf/$f"
done
printf 'listen %s;\n' "$listen" > "$prefix/conf/listen.conf"
: > "$prefix/conf/upstream.conf"
for u in "$@"; do
    # one failure takes a replica out for 10 s (its sessions move to the next one)
    printf 'server %s max_fails=1 fail_timeout=10s;\n' "$u" >> "$prefix/conf/upstream.conf"
done
