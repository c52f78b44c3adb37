# Gleaner in a container: `gleaner serve` (or `worker`, `mcp`, `keys ...`) on Debian with ffmpeg (AI
# transcripts, video analysis) and Chromium (rendered pages). docs/docker.md explains every choice.
#   docker build -t gleaner .
#   docker run -p 8080:8080 -v gleaner-data:/data gleaner
# Node 22 on Debian 12 (bookworm); Node 20.18+ and 24 work too.
ARG NODE_IMAGE=node:22-bookworm-slim

# Build: every dependency (TypeScript among them) from the lockfile, compile to dist/, then drop the
# development dependencies so only what runs is copied on.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# swagger-ui-dist's analytics package stays quiet (package.json's scarfSettings says so too).
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
COPY patches ./patches
# --ignore-scripts: the package's own `prepare` (the build) needs the sources, copied next; no dependency needs
# an install script (the SQLite store is WebAssembly, Chromium comes from Debian). The patches of patches/
# (docs/architecture.md, "One patched dependency") are applied as the postinstall script would.
RUN npm ci --ignore-scripts --no-audit --no-fund && npx patch-package --error-on-fail
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/gleaner.mjs ./scripts/
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# ffmpeg and ffprobe, Debian's Chromium, a font for rendered pages, CA certificates for outbound HTTPS,
# and tini as PID 1 (it forwards signals and reaps Chromium's exited helper processes).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg chromium fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
# A user of its own, no login shell; the data directory (SQLite store, temporary media) is its only writable place.
RUN groupadd --system --gid 10001 gleaner \
 && useradd --system --uid 10001 --gid gleaner --create-home --home-dir /home/gleaner --shell /usr/sbin/nologin gleaner \
 && mkdir -p /data && chown gleaner:gleaner /data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json LICENSE ./
# Listen on every interface of the container (the port is published by `docker run -p` or compose);
# the store and temporary media in the volume; the Debian Chromium for rendering.
ENV NODE_ENV=production \
    GLEANER_HOST=0.0.0.0 \
    GLEANER_PORT=8080 \
    GLEANER_DATA_DIR=/data \
    GLEANER_BROWSER_PATH=/usr/bin/chromium \
    GLEANER_FFMPEG_PATH=/usr/bin/ffmpeg \
    GLEANER_FFPROBE_PATH=/usr/bin/ffprobe
USER gleaner
VOLUME ["/data"]
EXPOSE 8080
# /healthz answers 200 when the process is up and its store answers (503 otherwise). Node's own fetch:
# the slim image has no curl. A `gleaner worker` serves no HTTP: compose.yaml turns this check off for it.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.GLEANER_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli/main.js"]
CMD ["serve"]
