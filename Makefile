# authbgpd — see README.md.
.PHONY: all build test quickstart bench fuzz clean

all: build

build:
	CGO_ENABLED=0 go build -trimpath -o bin/authbgpd ./cmd/authbgpd

# Every test: installs missing test dependencies (root), vet, race tests,
# privileged and end-to-end tests.
test:
	bash scripts/test.sh

quickstart:
	bash scripts/quickstart.sh

bench:
	go test -run '^$$' -bench . -benchtime 1s ./md5auth/...

# Short fuzzing runs of every fuzz target (set FUZZTIME to change).
FUZZTIME ?= 20s
fuzz:
	go test -run '^$$' -fuzz FuzzParseOptions -fuzztime $(FUZZTIME) ./md5auth

clean:
	rm -rf bin
