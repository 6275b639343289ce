# syntax=docker/dockerfile:1
# The web app on its own nginx (static files, SPA fallback, /api, /qr and /lang proxied to the gateway).
# Build from the repository root:  docker build -f deploy/docker/web.Dockerfile -t homing/web .
# The build stages mirror deploy/docker/Dockerfile so both images resolve dependencies the same way.

ARG NODE_IMAGE=node:20.20-bookworm-slim
ARG NGINX_IMAGE=nginx:1.27-alpine

FROM ${NODE_IMAGE} AS base
WORKDIR /app
# package.json asks for npm >= 11 and .npmrc sets engine-strict, so Node 20's bundled npm 10 refuses `npm ci`.
RUN npm install --global npm@11.19.1 && npm cache clean --force
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true

FROM base AS deps
# npm ci needs every workspace's package.json that package-lock.json names (tests/deploy checks this list).
COPY package.json package-lock.json .npmrc ./
COPY apps/gateway/package.json apps/gateway/
COPY apps/identity/package.json apps/identity/
COPY apps/items/package.json apps/items/
COPY apps/messaging/package.json apps/messaging/
COPY apps/notifications/package.json apps/notifications/
COPY apps/web/package.json apps/web/
COPY libs/contracts/package.json libs/contracts/
COPY libs/platform/package.json libs/platform/
COPY libs/testing/package.json libs/testing/
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npx nx run web:build

FROM ${NGINX_IMAGE} AS runtime
# Runs as the image's unprivileged nginx user (uid 101), so the pid file moves to /tmp and the `user`
# directive (meaningful only to a root master) goes; web.conf moves the temp paths to /tmp as well.
RUN sed -i -e '/^user /d' -e 's|^pid .*|pid /tmp/nginx.pid;|' /etc/nginx/nginx.conf \
 && rm -f /etc/nginx/conf.d/default.conf
COPY deploy/nginx/web.conf /etc/nginx/conf.d/web.conf
COPY --from=build /app/dist/apps/web /usr/share/nginx/html
# Numeric, so Kubernetes can verify runAsNonRoot against the image.
USER 101
# Unprivileged: 8080, not 80.
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --retries=3 CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/health/live"]
