# syntax=docker/dockerfile:1.7
# One image for the web server, the Celery workers and beat (docker-compose.yml picks the command).
#
#   CPU image (default):  docker build -t paralab:cpu .
#   GPU image:            docker build -t paralab:gpu --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu128 .
#
# TORCH_INDEX_URL picks the PyTorch wheel index: .../whl/cpu for CPU-only images (small), a CUDA
# one (.../whl/cu126, .../whl/cu128, ...) matching the host driver for GPU workers.

ARG PYTHON_IMAGE=python:3.11-slim

# --- build: compilers stay in this stage -------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG TORCH_VERSION=2.13.0
# The instruct LLM's runtime (xllamacpp): empty takes PyPI's CPU wheel; a GPU image names the project's
# CUDA wheel index (e.g. https://xorbitsai.github.io/xllamacpp/whl/cu128) so PARALAB_DEVICE=cuda offloads
# every layer to the GPU.
ARG XLLAMACPP_INDEX_URL=
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential \
 && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /app

# torch first, from the chosen index, so the project's "torch==…" pin finds it installed.
RUN --mount=type=cache,target=/root/.cache/pip \
    pip install --upgrade pip setuptools wheel \
 && pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}"

# The dependencies alone (cached until pyproject.toml changes), then the project itself.
COPY pyproject.toml ./
RUN --mount=type=cache,target=/root/.cache/pip \
    python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
 && pip install -r /tmp/requirements.txt \
 && if [ -n "${XLLAMACPP_INDEX_URL}" ]; then pip install --force-reinstall --no-deps --index-url "${XLLAMACPP_INDEX_URL}" \
      "$(grep '^xllamacpp' /tmp/requirements.txt)"; fi
COPY . .
# Editable on purpose: settings find templates/ and the static files relative to the source tree.
RUN pip install --no-deps -e .

# --- runtime ------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=paralab.settings \
    PARALAB_DATA_DIR=/data \
    PARALAB_MODEL_DIR=/data/models \
    PARALAB_MEDIA_DIR=/data/media \
    PARALAB_STATIC_ROOT=/app/staticfiles

RUN apt-get update \
 && apt-get install -y --no-install-recommends libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 1000 paralab \
 && mkdir -p /data/models /data/media /app/staticfiles \
 && chown -R paralab:paralab /data /app/staticfiles

COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
USER paralab

EXPOSE 8000
VOLUME ["/data"]
CMD ["gunicorn", "paralab.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120", "--access-logfile", "-"]
