# Unfurl: one image for every role. `docker run IMAGE` serves the API; `IMAGE worker` runs jobs;
# `IMAGE migrate` brings the database schema up to date. Configuration is environment variables only
# (README, "Configuration"); compose.yaml shows the distributed deployment.

# --- build: compile TypeScript (SDK workspace and server), then drop dev dependencies ---
FROM node:24-bookworm-slim AS build
# Toolchain for native modules (better-sqlite3, msgpackr-extract) when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/sdk packages/sdk
COPY src src
COPY patches patches
# Native modules are built here (scripts were skipped above so `prepare` does not run before src/ exists);
# patches/ are applied to node_modules (linkedom: see docs) before the dev tools are pruned.
RUN npm rebuild --no-audit --no-fund \
 && npx patch-package \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: Node, the system tools the service drives, and the built app ---
FROM node:24-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ffmpeg tesseract-ocr tesseract-ocr-eng poppler-utils chromium fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages/sdk/package.json packages/sdk/package.json
COPY --from=build /app/packages/sdk/dist packages/sdk/dist
COPY --from=build /app/dist dist
# The dashboard's static files are read from the source tree (tsc copies no non-TS files).
COPY --from=build /app/src/http/dashboard/static src/http/dashboard/static

ENV HOST=0.0.0.0 \
    PORT=8080 \
    UNFURL_DATA_DIR=/data \
    UNFURL_CHROMIUM_PATH=/usr/bin/chromium
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# No HEALTHCHECK here: workers serve no HTTP. compose.yaml checks the API containers on /ready.
# tini forwards SIGTERM so serve/worker drain their requests and jobs before exiting.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/main/cli.js"]
CMD ["serve"]
