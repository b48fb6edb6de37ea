#!/bin/bash
# The image's entry point. ROAD_ROLE says what this container runs:
#   all    (default) the image alone (docker run, a Hugging Face Space) and each Kubernetes
#          pod: Streamlit on $ROAD_APP_ADDRESS:$ROAD_APP_PORT (127.0.0.1:8502) behind nginx
#          on $PORT, with the repo's nginx configuration (compressed assets, cache headers,
#          public-page headers, per-client limits);
#   app    Streamlit alone on 0.0.0.0:$PORT: a replica behind a load balancer (Compose's
#          app1/app2);
#   proxy  nginx alone on $PORT in front of the replicas in $ROAD_UPSTREAMS
#          ("app1:8501 app2:8501"): Compose's load balancer.
# nginx never needs root: its files live in /tmp/road-nginx (deploy/nginx/layout.sh).
set -euo pipefail
PORT="${PORT:-8501}"
ROLE="${ROAD_ROLE:-all}"
PREFIX="${ROAD_NGINX_PREFIX:-/tmp/road-nginx}"
APP_PORT="${ROAD_APP_PORT:-8502}"  # Streamlit behind nginx in the "all" role
# 127.0.0.1: only nginx reaches Streamlit. A pod sets 0.0.0.0 so the kubelet's probes reach
# Streamlit's own endpoints, which nginx and the edge refuse (deploy/k8s/deployment.yaml).
APP_ADDRESS="${ROAD_APP_ADDRESS:-127.0.0.1}"
HERE="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$HERE"

streamlit_on() {  # address, port
    exec streamlit run app.py --server.address="$1" --server.port="$2" --server.headless=true
}

nginx_for() {  # upstreams...
    # /static/ from the pre-compressed folder the image made (deploy/precompress.py); when
    # it is missing (start.sh run outside the image), every asset is proxied instead.
    local static="${ROAD_STATIC_DIR:-/opt/road-static}"
    if [ ! -d "$static/static" ]; then
        echo "start.sh: no pre-compressed assets in $static: /static/ is proxied" >&2
        static=""
    fi
    ROAD_STATIC_DIR="$static" sh deploy/nginx/layout.sh "$PREFIX" "$PORT" "$@"
    ln -sf /dev/stdout "$PREFIX/logs/access.log"  # `docker logs` shows the access log
    exec nginx -p "$PREFIX/" -c "$PREFIX/conf/nginx.conf" -g 'daemon off;'
}

# The readiness markers live on a volume that outlives the container (a pod's /tmp
# emptyDir). Left from the previous run they lie: a container restarted by its liveness
# probe during a drain would stay "draining" (never ready again), one killed for its memory
# would be "ready" before its models are warm. This run's warm-up writes the ready file
# again (serve/warmup.py); only a new drain writes the drain file.
for marker in "${ROAD_READY_FILE:-}" "${ROAD_DRAIN_FILE:-}"; do
    if [ -n "$marker" ] && [ -e "$marker" ]; then
        rm -f -- "$marker"
        echo "start.sh: removed $marker, left by this container's previous run" >&2
    fi
done

case "$ROLE" in
    app)
        exec streamlit run app.py --server.address=0.0.0.0 --server.port="$PORT" \
            --server.headless=true
        ;;
    proxy)
        # shellcheck disable=SC2086  # one upstream a word
        nginx_for ${ROAD_UPSTREAMS:?set ROAD_UPSTREAMS, e.g. "app1:8501 app2:8501"} &
        ;;
    all)
        streamlit_on "$APP_ADDRESS" "$APP_PORT" &
        nginx_for "127.0.0.1:$APP_PORT" &
        ;;
    *)
        echo "ROAD_ROLE must be all, app or proxy (got '$ROLE')" >&2
        exit 2
        ;;
esac

# Stop everything on `docker stop`; if either process ends, end the container (its restart
# policy or Kubernetes starts a fresh one).
trap 'kill -TERM $(jobs -p) 2>/dev/null || true' TERM INT
set +e
wait -n
status=$?
kill -TERM $(jobs -p) 2>/dev/null
wait
exit "$status"
