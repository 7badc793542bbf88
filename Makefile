# authbgpd — see README.md.
.PHONY: all build image test quickstart bench fuzz soak clean

all: build

build:
	CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd

# The container image authbgpd:latest (Dockerfile), with docker if an engine
# answers, else podman (base images made locally when no registry is reachable).
image:
	bash scripts/images.sh

# Every test: installs missing test dependencies (root), vet, race tests,
# privileged and end-to-end tests.
test:
	bash scripts/test.sh

quickstart:
	bash scripts/quickstart.sh

# Micro-benchmarks and the BGP benchmarks (100k prefixes, 200 peers; root).
bench:
	bash scripts/bench.sh

# The fault soak (root): TestSoak for SOAK_SECONDS (default 300) with its
# figures printed; `go test ./...` runs a bounded version (one cycle, ~50 s).
soak:
	SOAK_SECONDS=$${SOAK_SECONDS:-300} go test -count=1 -v -run '^TestSoak$$' -timeout 30m ./e2e/

# Short fuzzing runs of every fuzz target (set FUZZTIME to change).
FUZZTIME ?= 20s
FUZZ_TARGETS = \
	./md5auth:FuzzParseOptions \
	./md5auth:FuzzParseDiag \
	./md5auth:FuzzParseNetstat \
	./frame:FuzzDecodeTCP \
	./shadow:FuzzCheckAO \
	./capture/capfile:FuzzReader \
	./config:FuzzParse \
	./srv6policy:FuzzDecodeSRH \
	./srv6policy:FuzzHMAC \
	./srv6policy:FuzzDecodePath \
	./srv6policy:FuzzDecodeRoute \
	./tcpao:FuzzParseOptions \
	./tcpao:FuzzSNE \
	./tcpao:FuzzVerify
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg)"; \
		go test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

clean:
	rm -rf bin
