# design-console-remote, the hosted MCP service (Remote Mode), as a container.
#   docker build -t design-console-remote .
#   docker run -p 8787:8787 -e DESIGN_REMOTE_BASE_URL=https://mcp.example.com \
#     -e DESIGN_OAUTH_CLIENT_ID=… -e DESIGN_OAUTH_CLIENT_SECRET=… -e DESIGN_TOKEN_KEYS=… \
#     -v design-console-data:/data design-console-remote
# Put TLS in front (a load balancer or reverse proxy: docs/remote/reverse-proxy.md has a Caddy and an nginx example)
# and set FORWARDED_ALLOW_IPS to its address, so that per-client limits count real clients; several instances need
# DESIGN_REMOTE_STORE=redis://…. The server raises its soft descriptor limit to the hard one and holds as many
# connections as that leaves room for: give it a larger hard limit with `docker run --ulimit nofile=65536:65536`.
# The build needs Python only: axe-core (design_scan_code_accessibility) ships inside the package.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY design_console ./design_console
COPY plugin ./plugin
COPY systemd ./systemd
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
# Debian's chromium for the headless browser (REMOTE_BROWSER_PATH=/usr/bin/chromium, the default).
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 design \
    && mkdir /data && chown design /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/design_console_mcp-*.whl)[remote]" --find-links /wheels && rm -rf /wheels
USER design
ENV DESIGN_REMOTE_HOST=0.0.0.0 \
    DESIGN_REMOTE_PORT=8787 \
    DESIGN_CONSOLE_HOME=/data \
    PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8787/health').status != 200)"
CMD ["design-console-remote"]
