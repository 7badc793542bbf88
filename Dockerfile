# authbgpd router image: a static binary (the same CGO_ENABLED=0 build the
# tests run) on a minimal base, running as a non-root user that holds only
# the capabilities a BGP router with TCP-MD5, a shadow checker and SRv6 key
# programming needs.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/authbgpd ./cmd/authbgpd

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libcap2-bin curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --no-create-home --uid 179 authbgpd \
    && mkdir -p /etc/authbgpd
COPY --from=build /out/authbgpd /usr/local/bin/authbgpd
# File capabilities: bind port 179, capture (shadow checker), keys and routes.
RUN setcap cap_net_bind_service,cap_net_raw,cap_net_admin=ep /usr/local/bin/authbgpd
USER authbgpd
EXPOSE 179 50051 9179
HEALTHCHECK --interval=10s --timeout=3s CMD curl -fsS http://127.0.0.1:9179/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/authbgpd"]
CMD ["-f", "/etc/authbgpd/authbgpd.toml"]
