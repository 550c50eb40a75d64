# model-vault API and web UI. Build: docker build -t model-vault .   Run: see compose.yaml.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles a native addon when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

# The `frontend` service of compose.yaml: the same built UI behind nginx, proxying the API.
# Build it with: docker build --target frontend -t model-vault-frontend .
FROM nginxinc/nginx-unprivileged:1.27-alpine AS frontend
COPY deploy/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=build /app/dist/web /usr/share/nginx/html

# The API (and the UI too, for installs without the frontend container). The default target.
FROM node:24-bookworm-slim
# glibc: two malloc arenas, and freed memory handed back sooner: 437 → 367 MiB peak in the
# 200-upload burst (docs/reliability.md, finding 12), at no measurable cost.
ENV NODE_ENV=production \
    VAULT_HOST=0.0.0.0 \
    VAULT_PORT=8080 \
    VAULT_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2 \
    MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
# pg_dump for backups of a PostgreSQL database (it must be as new as the server's major version).
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# One directory per volume (blobs, thumbnails, database, backups), owned by the unprivileged user.
RUN mkdir -p /data/blobs /data/thumbs /data/db /data/backups && chown -R node:node /data
USER node
VOLUME ["/data/blobs", "/data/thumbs", "/data/db", "/data/backups"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The same command as `npm start`, without npm in between so SIGTERM reaches node directly.
CMD ["node", "dist/src/adapters/node/main.js"]
