# Road to Attention: a CPU-only image (also the recipe for a Hugging Face Docker Space).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8501 \
    ROAD_DATA_DIR=/data

WORKDIR /app

# CPU wheel of torch first (a plain `pip install torch` pulls several GB of CUDA libraries).
COPY requirements.txt .
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install -r requirements.txt

# Run as an unprivileged user (Hugging Face Spaces run containers as uid 1000).
RUN useradd --create-home --uid 1000 app \
 && mkdir -p /data && chown app:app /data
# Class polls (SQLite). Mount a volume here to keep them across restarts; set
# ROAD_DATABASE_URL to use PostgreSQL instead (several replicas).
VOLUME /data
COPY --chown=app:app . .
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"PORT\", \"8501\")}/_stcore/health', timeout=4)"

CMD ["sh", "-c", "streamlit run app.py --server.address=0.0.0.0 --server.port=${PORT} --server.headless=true"]
