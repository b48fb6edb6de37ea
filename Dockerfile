# Road to Attention: a CPU-only image (also the recipe for a Hugging Face Docker Space).
#
# Alone (`docker run -p 8501:8501 road-to-attention`, a Space) it runs Streamlit behind
# nginx with the repo's configuration in deploy/nginx/ (compressed /static/ assets, cache
# and public-page headers, per-client limits). ROAD_ROLE=app runs Streamlit alone (a
# replica behind a load balancer), ROAD_ROLE=proxy nginx alone: see deploy/docker/start.sh,
# deploy/compose.yaml and deploy/k8s/.
# Debian 12 (bookworm): its nginx 1.22 and brotli module are the ones the config is tested
# with (tests/test_scale_out.py, tests/deploy/).
# BASE_IMAGE: any Debian 12 with Python 3.11 whose `python` and `pip` come first on PATH;
# CI builds from a local debootstrap base (deploy/docker/base.sh, deploy/docker/build.py).
ARG BASE_IMAGE=python:3.11-slim-bookworm
FROM ${BASE_IMAGE}
# Where torch's CPU wheel comes from. Where that index is unreachable, PyPI's index plus a
# folder holding the CPU wheel (EXTRA_PIP_ARGS="--find-links DIR", DIR mounted into the
# build with `podman build -v DIR:DIR:ro`); PyPI alone brings torch's CUDA build (GBs).
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# More pip options for this build only (a local wheel folder or index); none by default.
ARG EXTRA_PIP_ARGS=""

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8501 \
    ROAD_ROLE=all \
    ROAD_DATA_DIR=/data \
    STREAMLIT_CLIENT_SHOW_ERROR_DETAILS=none \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none \
    ROAD_PUBLIC=1 \
    ROAD_TRUST_PROXY=1 \
    STREAMLIT_SERVER_ENABLE_WEBSOCKET_COMPRESSION=true \
    ROAD_CACHE_DIR=/opt/road-cache

WORKDIR /app

RUN apt-get update \
 && apt-get install -y --no-install-recommends nginx libnginx-mod-http-brotli-filter \
    libnginx-mod-http-brotli-static \
 && rm -rf /var/lib/apt/lists/*

# CPU wheel of torch first (a plain `pip install torch` pulls several GB of CUDA libraries).
COPY requirements.txt .
RUN pip install $EXTRA_PIP_ARGS --index-url "$TORCH_INDEX_URL" torch==2.13.0 \
 && pip install $EXTRA_PIP_ARGS -r requirements.txt \
 && python -c "import torch; assert torch.version.cuda is None, 'torch is a CUDA build'"

# Streamlit's /static/ assets pre-compressed once (brotli 11, gzip 9), served by nginx from
# disk (deploy/precompress.py, deploy/nginx/road.conf), the icon font cut to the icons the
# app and Streamlit name (0.37 MB -> ~16 kB on every first visit). Its own layer: rebuilt
# only when the requirements (Streamlit's version), the script or the icon list change.
COPY deploy/precompress.py deploy/material-icons.txt deploy/
RUN pip install $EXTRA_PIP_ARGS brotli==1.2.1 fonttools==4.60.1 \
 && python deploy/precompress.py /opt/road-static --icons deploy/material-icons.txt

# Run as an unprivileged user (Hugging Face Spaces run containers as uid 1000).
RUN useradd --create-home --uid 1000 app \
 && mkdir -p /data && chown app:app /data
# Class polls (SQLite). Mount a volume here to keep them across restarts; set
# ROAD_DATABASE_URL to use PostgreSQL instead (several replicas).
VOLUME /data
# The whole build context, filtered by .dockerignore (no tests, bench, results, .env, .git),
# so every top-level package of the app comes along. Owned by root: the app user reads its
# code and never rewrites it (the image also runs with a read-only root filesystem).
COPY . .
# The corpus splits (core.corpus.stored_splits) built once here, so a new replica reads them
# in about a second instead of building them for ~20 s while its first class arrives.
RUN python -c "from core import corpus, zoo; corpus.stored_splits(int(zoo.load_manifest()['corpus']['seed']))" \
 && test -n "$(ls /opt/road-cache)"
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8501\")}/_stcore/health', timeout=4)"

# Visitors see no tracebacks (STREAMLIT_CLIENT_SHOW_ERROR_DETAILS=none above wins over
# .streamlit/config.toml); the server log keeps them. The websocket is compressed by
# Streamlit itself (permessage-deflate, STREAMLIT_SERVER_ENABLE_WEBSOCKET_COMPRESSION
# above): nginx passes it through untouched, and a page's figures travel in it.
CMD ["bash", "deploy/docker/start.sh"]
