#!/bin/bash
# Run a built image where no OCI runtime works (a CI sandbox), as
#   podman run --read-only --tmpfs /tmp -v DATA:/data --network host IMAGE [CMD...]
# would: the image's own environment, working directory, user and command, on a read-only
# root with a writable /tmp and volume. Needs root; the image's files come from
#   ROOTFS=$(podman image mount IMAGE)    ...    podman image unmount IMAGE
# Usage: chroot-run.sh [-e NAME=VALUE]... [-v SRC:DEST]... [-u USER] IMAGE ROOTFS DATA [CMD...]
#   -e  sets or overrides one variable of the image's environment
#   -v  binds a host file or folder over DEST, read-only
#   -u  runs as USER (a name in the image) instead of the image's user
# The mounts live in a mount namespace of their own: they vanish with the process.
set -euo pipefail
ENVS=()
BINDS=()
AS=""
while getopts "e:v:u:" opt; do
    case "$opt" in
        e) ENVS+=("$OPTARG") ;;
        v) BINDS+=("$OPTARG") ;;
        u) AS="$OPTARG" ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
IMAGE="$1" ROOTFS="$2" DATA="$3"
shift 3

if [ "${ROAD_CHROOT_NS:-}" != "$$" ]; then
    # again, in a private mount namespace (unshare execs in place: the same process id)
    export ROAD_CHROOT_NS=$$
    args=()
    for e in ${ENVS[@]+"${ENVS[@]}"}; do args+=(-e "$e"); done
    for b in ${BINDS[@]+"${BINDS[@]}"}; do args+=(-v "$b"); done
    if [ -n "$AS" ]; then args+=(-u "$AS"); fi
    exec unshare --mount --propagation private bash "$0" ${args[@]+"${args[@]}"} \
        "$IMAGE" "$ROOTFS" "$DATA" "$@"
fi
unset ROAD_CHROOT_NS

inspect() { podman image inspect --format "$1" "$IMAGE"; }
# The root: the image's files, read-only; the kernel's and the runtime's usual mounts.
mount --bind "$ROOTFS" "$ROOTFS"
mount -o remount,bind,ro "$ROOTFS"
mount -t proc proc "$ROOTFS/proc"
mount --rbind /dev "$ROOTFS/dev"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$ROOTFS/tmp"
for f in /etc/hosts /etc/resolv.conf; do
    if [ -f "$ROOTFS$f" ] && [ -f "$f" ]; then mount --bind -o ro "$f" "$ROOTFS$f"; fi
done
mapfile -t VOLUMES < <(inspect '{{range $k, $v := .Config.Volumes}}{{println $k}}{{end}}' | sed '/^$/d')
[ "${#VOLUMES[@]}" -eq 1 ] || { echo "chroot-run.sh: expected one VOLUME: ${VOLUMES[*]-}" >&2; exit 2; }
mount --bind "$DATA" "$ROOTFS${VOLUMES[0]}"
for b in ${BINDS[@]+"${BINDS[@]}"}; do
    mount --bind "${b%%:*}" "$ROOTFS${b#*:}"
    mount -o remount,bind,ro "$ROOTFS${b#*:}"
done

USER_NAME="${AS:-$(inspect '{{.Config.User}}')}"
USER_NAME="${USER_NAME:-root}"
entry="$(chroot "$ROOTFS" getent passwd "${USER_NAME%%:*}")"
IFS=: read -r _ _ uid gid _ home _ <<<"$entry"
WORKDIR="$(inspect '{{.Config.WorkingDir}}')"
mapfile -t IMAGE_ENV < <(inspect '{{range .Config.Env}}{{println .}}{{end}}' | sed '/^$/d')
if [ "$#" -eq 0 ]; then
    mapfile -t CMD < <(inspect '{{range .Config.Entrypoint}}{{println .}}{{end}}{{range .Config.Cmd}}{{println .}}{{end}}' | sed '/^$/d')
    set -- "${CMD[@]}"
fi
# Standard output and error belong to the user, as an OCI runtime makes them (nginx reopens
# /dev/stdout for its access log).
for fd in 1 2; do
    case "$(readlink "/proc/$$/fd/$fd")" in
        /dev/null | /dev/pts/* | /dev/tty*) ;;
        *) chown "$uid:$gid" "/proc/$$/fd/$fd" ;;
    esac
done
exec chroot --userspec="$uid:$gid" "$ROOTFS" /usr/bin/env -i HOME="$home" \
    "${IMAGE_ENV[@]}" ${ENVS[@]+"${ENVS[@]}"} \
    /bin/sh -c 'cd "$0" && exec "$@"' "${WORKDIR:-/}" "$@"
