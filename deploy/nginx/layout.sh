#!/bin/sh
# Lay out an nginx folder for this deploy: the repo's own files (linked, used verbatim)
# plus the three files that differ per environment.
#
#     [ROAD_STATIC_DIR=FOLDER] deploy/nginx/layout.sh PREFIX LISTEN UPSTREAM...
#     nginx -p PREFIX/ -c PREFIX/conf/nginx.conf -g 'daemon off;'
#
# LISTEN is what nginx listens on ("8080", "127.0.0.1:8630"); each UPSTREAM is a replica
# ("app1:8501", "127.0.0.1:8631"). ROAD_STATIC_DIR is the folder deploy/precompress.py
# made (Streamlit's /static/ files with their .br and .gz): static.conf points /static/ at
# it. Unset, static.conf points at an empty folder and every asset is proxied to the app
# and compressed on the fly. Behind a proxy that appends the visitor's address to
# X-Forwarded-For (a Hugging Face Space), ROAD_FORWARDED_FOR=1 takes the client's address from
# there (realip.conf is forwarded-for.conf; else it is empty). ROAD_FRAME_ANCESTORS adds the
# sites that may embed the pages ("https://huggingface.co": the Space's own page) to the
# policy's frame-ancestors 'self' (headers.conf is then a copy that says so). Used by
# deploy/docker/start.sh (the image and Compose) and by tests/deploy/test_scale_out.py,
# tests/deploy/test_config.py and tests/browser/test_phone_bytes.py.
set -eu
if [ "$#" -lt 3 ]; then
    echo "usage: [ROAD_STATIC_DIR=FOLDER] $0 PREFIX LISTEN UPSTREAM..." >&2
    exit 2
fi
prefix=$1
listen=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
static=${ROAD_STATIC_DIR:-}
if [ -n "$static" ]; then
    if [ ! -d "$static/static" ]; then
        echo "ROAD_STATIC_DIR=$static has no static/ folder: run deploy/precompress.py $static" >&2
        exit 2
    fi
    static=$(cd "$static" && pwd)
else
    mkdir -p "$prefix/empty-static"
    static=$(cd "$prefix/empty-static" && pwd)
fi
forwarded=${ROAD_FORWARDED_FOR:-0}
case "$forwarded" in
    0 | 1) ;;
    *)
        echo "ROAD_FORWARDED_FOR must be 1 or 0, got '$forwarded'" >&2
        exit 2
        ;;
esac
ancestors=${ROAD_FRAME_ANCESTORS:-}
case "$ancestors" in
    *[!A-Za-z0-9.:/*\ -]*)
        echo "ROAD_FRAME_ANCESTORS: origins such as https://huggingface.co, one a word, got '$ancestors'" >&2
        exit 2
        ;;
esac
case "$static" in
    *[\"\;\ \$\\]*)
        echo "ROAD_STATIC_DIR must not hold quotes, spaces, ';', '\$' or '\\': $static" >&2
        exit 2
        ;;
esac
mkdir -p "$prefix/conf" "$prefix/logs" "$prefix/temp"
for f in nginx.conf road.conf proxy-headers.conf headers.conf asset-headers.conf; do
    ln -sf "$here/$f" "$prefix/conf/$f"
done
# Never write through a link: it would rewrite the repo's own file.
rm -f "$prefix/conf/realip.conf"
if [ "$forwarded" = 1 ]; then
    ln -s "$here/forwarded-for.conf" "$prefix/conf/realip.conf"
else
    : > "$prefix/conf/realip.conf"
fi
if [ -n "$ancestors" ]; then
    rm -f "$prefix/conf/headers.conf"
    sed "s|frame-ancestors 'self'\" always;|frame-ancestors 'self' $ancestors\" always;|" \
        "$here/headers.conf" > "$prefix/conf/headers.conf"
    if ! grep -qF "frame-ancestors 'self' $ancestors\" always;" "$prefix/conf/headers.conf"; then
        echo "headers.conf: no frame-ancestors 'self' to extend" >&2
        exit 2
    fi
fi
printf 'listen %s;\n' "$listen" > "$prefix/conf/listen.conf"
# nginx's "auto" counts the host's cores; a container limited to 1 CPU on a 32-core node
# would start 32 workers. The cores this process may use (affinity), capped by the cgroup's
# CPU quota rounded up (v2 cpu.max, else v1); ROAD_NGINX_WORKERS overrides.
workers=$(nproc 2>/dev/null || echo 1)
quota=""; period=""
if [ -r /sys/fs/cgroup/cpu.max ]; then
    read -r quota period < /sys/fs/cgroup/cpu.max || true
elif [ -r /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    quota=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us)
    period=$(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)
fi
case "$quota$period" in
    *[!0-9]* | "") ;;  # "max", "-1" or nothing: no quota
    *) if [ "$period" -gt 0 ] && [ "$quota" -gt 0 ]; then
           limit=$(( (quota + period - 1) / period ))
           if [ "$limit" -lt "$workers" ]; then workers=$limit; fi
       fi ;;
esac
workers=${ROAD_NGINX_WORKERS:-$workers}
printf 'worker_processes %s;\n' "$workers" > "$prefix/conf/workers.conf"
printf 'root %s;\n' "$static" > "$prefix/conf/static.conf"
: > "$prefix/conf/upstream.conf"
for u in "$@"; do
    # one failure takes a replica out for 10 s (its sessions move to the next one)
    printf 'server %s max_fails=1 fail_timeout=10s;\n' "$u" >> "$prefix/conf/upstream.conf"
done
