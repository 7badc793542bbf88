#!/usr/bin/env bash
# Builds the authbgpd image (the Dockerfile) as authbgpd:latest, with docker
# when a docker engine answers, else with podman.
#
#   bash scripts/images.sh [TAG]        (make image)
#
# With podman and no registry, the Dockerfile's base images are made
# locally when missing (needs root and debootstrap):
#   docker.io/library/debian:bookworm-slim   debootstrap --variant=minbase bookworm
#                                            from the machine's Debian mirror
#   docker.io/library/golang:1.26-bookworm   that, plus this machine's Go
#                                            (go env GOROOT -> /usr/local/go)
#                                            and its CA bundle (go mod download)
# The debootstrap rootfs is cached as a tarball under $IMAGE_CACHE
# (default /var/cache/authbgpd-images), so later runs only import it.
#
# Environment: VERSION (build arg, default: git describe or dev),
# IMAGE_ENGINE=docker|podman to force one, IMAGE_CACHE.
set -euo pipefail
cd "$(dirname "$0")/.."

tag=${1:-authbgpd:latest}
cache=${IMAGE_CACHE:-/var/cache/authbgpd-images}
version=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
debian_img=docker.io/library/debian:bookworm-slim
golang_img=docker.io/library/golang:1.26-bookworm

# podman as these machines need it (see docs/OPERATIONS.md).
podman_g=(--runtime runc --cgroup-manager cgroupfs)
ulimits=(--ulimit nofile=1024:1024 --ulimit nproc=1000:1000)

engine=${IMAGE_ENGINE:-}
if [ -z "$engine" ]; then
	if command -v docker >/dev/null 2>&1 && timeout 5 docker info >/dev/null 2>&1; then
		engine=docker
	elif command -v podman >/dev/null 2>&1; then
		engine=podman
	else
		echo "images: neither a docker engine nor podman (scripts/deps.sh installs podman)" >&2
		exit 1
	fi
fi

if [ "$engine" = docker ]; then
	echo "images: docker build -t $tag"
	exec docker build --build-arg VERSION="$version" -t "$tag" .
fi

pm() { podman "${podman_g[@]}" "$@"; }
have_image() { pm image exists "$1"; }

mirror() {
	local m
	m=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
	echo "${m:-http://deb.debian.org/debian}"
}

# debian:bookworm-slim from a cached (or new) debootstrap rootfs.
make_debian() {
	local tarball=$cache/debian-bookworm-minbase-slim.tar
	if [ ! -s "$tarball" ]; then
		command -v debootstrap >/dev/null 2>&1 || { echo "images: debootstrap missing (scripts/deps.sh)" >&2; exit 1; }
		mkdir -p "$cache"
		local dir
		dir=$(mktemp -d "$cache/rootfs.XXXXXX")
		echo "images: debootstrap --variant=minbase bookworm $(mirror) (cached in $tarball)"
		debootstrap --variant=minbase bookworm "$dir" "$(mirror)" >"$cache/debootstrap.log" 2>&1 ||
			{ tail -20 "$cache/debootstrap.log" >&2; rm -rf "$dir"; exit 1; }
		# As the real slim image: no apt lists, no caches, apt cleans up after
		# itself, dpkg leaves out docs, man pages and translations.
		cat >"$dir/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APT
		echo 'Acquire::Languages "none";' >"$dir/etc/apt/apt.conf.d/docker-no-languages"
		mkdir -p "$dir/etc/dpkg/dpkg.cfg.d"
		cat >"$dir/etc/dpkg/dpkg.cfg.d/docker" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
DPKG
		rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
		tar -C "$dir" -c . >"$tarball.tmp" && mv "$tarball.tmp" "$tarball"
		rm -rf "$dir"
	fi
	echo "images: podman import $tarball $debian_img"
	pm import --change 'CMD ["bash"]' - "$debian_img" <"$tarball" >/dev/null
}

# golang:1.26-bookworm = debian + this machine's Go + CA bundle.
make_golang() {
	local goroot ctx
	goroot=$(go env GOROOT)
	ctx=$(mktemp -d)
	trap 'rm -rf "$ctx"' RETURN
	cp -a "$goroot" "$ctx/go"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-certificates.crt"
	cat >"$ctx/Containerfile" <<EOF
FROM $debian_img
COPY go /usr/local/go
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
WORKDIR /go
EOF
	echo "images: $golang_img from $debian_img + $goroot ($(go env GOVERSION))"
	pm build --pull=never --format docker "${ulimits[@]}" -t "$golang_img" "$ctx" >/dev/null
}

have_image "$debian_img" || make_debian
have_image "$golang_img" || make_golang

echo "images: podman build -t $tag"
pm build --pull=never --format docker "${ulimits[@]}" --build-arg VERSION="$version" -t "$tag" .
