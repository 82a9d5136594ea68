# syntax=docker/dockerfile:1
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system echo-agent \
 && useradd --system --gid echo-agent --home-dir /var/lib/echo-agent --create-home echo-agent
WORKDIR /app
# the example config reads its data dir, workspace and HTTP port from these; /app stays root-owned and read-only
ENV NODE_ENV=production \
    ECHO_AGENT_CONFIG=/app/config/echo-agent.yaml \
    STATE_DIRECTORY=/var/lib/echo-agent \
    ECHO_AGENT_WORKSPACE=/var/lib/echo-agent/workspace \
    ECHO_AGENT_HTTP_PORT=9464
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY drizzle ./drizzle
COPY jobs ./jobs
COPY config ./config
COPY tsconfig.json ./
# metrics on all interfaces, so the host can scrape the published port
RUN cp config/echo-agent.example.yaml config/echo-agent.yaml \
 && sed -i 's#^    host: 127.0.0.1#    host: 0.0.0.0#' config/echo-agent.yaml \
 && grep -q '^    host: 0.0.0.0' config/echo-agent.yaml
USER echo-agent
VOLUME ["/var/lib/echo-agent"]
EXPOSE 9464
# the port the config serves on: the example reads it from ECHO_AGENT_HTTP_PORT, and so does this check
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.ECHO_AGENT_HTTP_PORT||9464}/healthz`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/echo-agent.js", "daemon"]
