#!/usr/bin/env bash
# The quickstart: builds authbgpd (static, as the container image does) and
# shows what it does today. It grows into a two-router TCP-MD5 + SRv6 demo
# as the speaker lands.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bin
CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd
echo "built bin/authbgpd: $(bin/authbgpd version)"
echo
echo "\$ authbgpd check -f examples/authbgpd.toml"
bin/authbgpd check -f examples/authbgpd.toml
echo
echo "The BGP speaker itself (authbgpd -f FILE), the shadow checker and SRv6 are coming;"
echo "this quickstart will then start two routers in network namespaces."
