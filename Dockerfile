# authbgpd router image: a static binary (the same CGO_ENABLED=0 build the
# tests run) on a minimal base, running as a non-root user that holds only
# the capabilities a BGP router with TCP-MD5, a shadow checker and SRv6 key
# programming needs.
#
#   docker build -t authbgpd:latest .
#   docker run --cap-drop ALL --cap-add NET_BIND_SERVICE --cap-add NET_RAW --cap-add NET_ADMIN \
#     -v ./authbgpd.toml:/etc/authbgpd/authbgpd.toml:ro -v ./secrets:/etc/authbgpd/secrets:ro authbgpd:latest
#
# The container must be granted all three capabilities: the binary's file
# capabilities carry the effective bit, and the kernel refuses to execute it
# ("operation not permitted") when the bounding set lacks any of them.
# Secrets must be readable by uid 179. See docs/OPERATIONS.md.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/authbgpd ./cmd/authbgpd

FROM debian:bookworm-slim
# iproute2: `ip sr hmac show`, and addresses/routes set by containerlab exec
# lines; curl: the health check.
RUN apt-get update && apt-get install -y --no-install-recommends libcap2-bin curl ca-certificates iproute2 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 179 authbgpd \
    && useradd --system --no-create-home --uid 179 --gid 179 --shell /usr/sbin/nologin authbgpd \
    && mkdir -p /etc/authbgpd/secrets
COPY --from=build /out/authbgpd /usr/local/bin/authbgpd
# File capabilities: bind port 179, capture (shadow checker), keys and routes.
RUN setcap cap_net_bind_service,cap_net_raw,cap_net_admin=p /usr/local/bin/authbgpd
USER authbgpd
EXPOSE 179 50051 9179
HEALTHCHECK --interval=10s --timeout=3s CMD curl -fsS http://127.0.0.1:9179/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/authbgpd"]
CMD ["-f", "/etc/authbgpd/authbgpd.toml"]
