# authbgpd router image: a static binary (the same CGO_ENABLED=0 build the
# tests run) on a minimal base, running as a non-root user that holds only
# the capabilities a BGP router with TCP-MD5, a shadow checker and SRv6 key
# programming needs.
#
#   make image        # scripts/images.sh: docker build, or podman build (see there)
#   docker build -t authbgpd:latest .
#   docker run --cap-drop ALL --cap-add NET_BIND_SERVICE --cap-add NET_RAW --cap-add NET_ADMIN \
#     -v ./authbgpd.toml:/etc/authbgpd/authbgpd.toml:ro -v ./secrets:/etc/authbgpd/secrets:ro authbgpd:latest
#
# The binary's file capabilities are permitted only (`=p`, no effective
# bit): execve as uid 179 puts them in the permitted set, and the daemon
# raises each one into its effective set itself when it needs it. Grant the
# container all three; one missing from the bounding set is simply not
# permitted, and the daemon reports what it cannot do. Secrets must be
# readable by uid 179. See docs/OPERATIONS.md.
FROM golang:1.26-bookworm AS build
# setcap here, so the runtime stage gets the binary, capabilities and all
# (the security.capability xattr), in one COPY layer.
RUN apt-get update && apt-get install -y --no-install-recommends libcap2-bin \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces GoBGP with the carried copy (third_party/gobgp/README.md).
COPY third_party/gobgp/v3 ./third_party/gobgp/v3
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/authbgpd ./cmd/authbgpd \
    && setcap cap_net_bind_service,cap_net_raw,cap_net_admin,cap_bpf,cap_perfmon=p /out/authbgpd \
    && getcap /out/authbgpd

FROM debian:bookworm-slim
# iproute2: `ip sr hmac show`, and addresses/routes set by containerlab exec
# lines. No HTTP client: the health check is `authbgpd status --health`.
RUN apt-get update && apt-get install -y --no-install-recommends iproute2 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 179 authbgpd \
    && useradd --system --no-create-home --uid 179 --gid 179 --shell /usr/sbin/nologin authbgpd \
    && mkdir -p /etc/authbgpd/secrets
# File capabilities (set in the build stage, kept by COPY): bind port 179,
# capture (shadow checker), keys and routes.
COPY --from=build /out/authbgpd /usr/local/bin/authbgpd
USER authbgpd
EXPOSE 179 50051 9179
# --health reads the API address from the config ([api] http), as the daemon does.
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD ["/usr/local/bin/authbgpd", "status", "--health", "-f", "/etc/authbgpd/authbgpd.toml"]
ENTRYPOINT ["/usr/local/bin/authbgpd"]
CMD ["-f", "/etc/authbgpd/authbgpd.toml"]
