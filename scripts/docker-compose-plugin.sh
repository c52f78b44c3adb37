#!/usr/bin/env bash
# Puts `docker compose` (v2) and `docker buildx` in the Docker client's plugin folder on Debian 12 (bookworm),
# from Debian's archive: bookworm ships only docker-compose 1.29 (v1, no `--wait`); Debian 13 (trixie) ships v2
# as a static Go plugin needing only libc6 (>= 2.34), which bookworm's 2.36 satisfies. The trixie packages are
# fetched with a private apt state (the system's sources and package lists are untouched) and unpacked, not
# installed, into $DOCKER_CONFIG/cli-plugins (default ~/.docker/cli-plugins): only a shell with that
# DOCKER_CONFIG sees them. So `DOCKER_CONFIG=/some/dir scripts/docker-compose-plugin.sh` gives compose to the
# commands run with that DOCKER_CONFIG alone, and a test suite run without it still skips Docker. See docs/docker.md.
set -euo pipefail
plugins=${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins
if [ -x "$plugins/docker-compose" ] && [ -x "$plugins/docker-buildx" ]; then
  DOCKER_CONFIG=${DOCKER_CONFIG:-$HOME/.docker} docker compose version
  exit 0
fi
mirror=${GLEANER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root" "$plugins"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" >"$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache" -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update >&2
(cd "$work/debs" && apt-get "${apt[@]}" download docker-compose docker-buildx >&2)
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
install -m 0755 "$work/root/usr/libexec/docker/cli-plugins/docker-compose" "$work/root/usr/libexec/docker/cli-plugins/docker-buildx" "$plugins/"
DOCKER_CONFIG=${DOCKER_CONFIG:-$HOME/.docker} docker compose version
