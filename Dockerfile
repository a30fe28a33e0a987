# syntax=docker/dockerfile:1
FROM node:24-bookworm-slim AS deps
WORKDIR /app
# The compiler is for the optional better-sqlite3-node20 (Node.js 20 only); on Node.js 24 the service runs
# better-sqlite3 13, whose binaries come with the package (docs/operations.md#installing).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The workspaces' manifests first, so that npm ci installs and links them (and its layer is reused).
COPY packages/sdk/package.json ./packages/sdk/
COPY packages/admin/package.json ./packages/admin/
COPY packages/storefront/package.json ./packages/storefront/
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ormconfig.ts ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
COPY packages ./packages
# The service, then the SDK (its types from the service's OpenAPI document), then the admin console on the SDK:
# all of them, as nothing is built yet. The build's records of what it built from are not needed at run time.
# The prune keeps the service's own dependencies only (not the storefront's, which has an image of its own).
RUN npm run build && npm prune --omit=dev --omit=optional --workspaces=false \
  && rm -rf node_modules/.cache dist/*.tsbuildinfo

# The storefront starter (docs/storefront.md): `docker build --target storefront .`, or the compose file's
# `storefront` service. NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY is read when it is built.
FROM deps AS storefront-build
ARG NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=""
ENV NEXT_TELEMETRY_DISABLED=1
COPY packages ./packages
RUN npm run build -w @commerce/storefront

FROM node:24-bookworm-slim AS storefront
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 COMMERCE_API_URL=http://app:3000
WORKDIR /app
COPY --from=storefront-build /app ./
USER node
EXPOSE 3100
CMD ["node_modules/.bin/next", "start", "packages/storefront", "--port", "3100"]

# The service (the default target: the last stage).

FROM node:24-bookworm-slim
# Production serves GET /metrics only on METRICS_PORT, never on the API port.
ENV NODE_ENV=production PORT=3000 METRICS_PORT=9464 UPLOAD_DIR=/app/uploads
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The admin console's build, served at /admin (ADMIN_CONSOLE_DIR's default, relative to WORKDIR).
COPY --from=build /app/packages/admin/dist ./packages/admin/dist
RUN mkdir -p /app/data /app/uploads && chown -R node:node /app/data /app/uploads
USER node
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/api/v1/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
