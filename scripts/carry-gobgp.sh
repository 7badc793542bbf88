#!/usr/bin/env bash
# scripts/carry-gobgp.sh [--check]  makes third_party/gobgp/v3: the pristine
# GoBGP module named in third_party/gobgp/PRISTINE, from the Go module cache
# (downloaded through the module proxy when missing), checked against its
# published h1: dirhash, with every third_party/gobgp/patches/*.patch applied
# in order. go.mod `replace`s GoBGP with that directory; the result is
# committed. --check builds it in a temporary directory and compares it with
# the committed copy instead (exit 1 if they differ). See
# third_party/gobgp/README.md for carrying it to a new GoBGP release.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
carry=$repo/third_party/gobgp
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

field() { awk -v k="$1" '$1 == k { print $2 }' "$carry/PRISTINE"; }
mod=$(field module); ver=$(field version); want=$(field h1)
[ -n "$mod" ] && [ -n "$ver" ] && [ -n "$want" ] || { echo "carry-gobgp: $carry/PRISTINE: needs module, version and h1 lines" >&2; exit 1; }

# The pristine module: go mod download outside this module (our go.mod
# replaces it), so the cache or the proxy serves the published zip.
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dir=$(cd "$tmp" && GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "$mod@$ver" |
	awk -F'"' '$2 == "Dir" { print $4 }')
[ -d "$dir" ] || { echo "carry-gobgp: go mod download $mod@$ver gave no directory" >&2; exit 1; }

# h1: as golang.org/x/mod/sumdb/dirhash.Hash1: sha256 over the sorted lines
# "<sha256 hex>  <module>@<version>/<file>\n".
h1() {
	local hex
	hex=$(cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort |
		while IFS= read -r f; do
			printf '%s  %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "$mod@$ver/$f"
		done | sha256sum | cut -d' ' -f1)
	printf '%b' "$(echo "$hex" | sed 's/../\\x&/g')" | base64 -w0
}
got="h1:$(h1 "$dir")"
if [ "$got" != "$want" ]; then
	echo "carry-gobgp: $dir is $got, not the published $want: refusing it" >&2
	exit 1
fi

out=$tmp/v3
cp -r "$dir" "$out"
chmod -R u+w "$out"
for p in "$carry"/patches/*.patch; do
	[ -e "$p" ] || continue
	patch -s -p1 -N -f --no-backup-if-mismatch -d "$out" <"$p" ||
		{ echo "carry-gobgp: $(basename "$p") does not apply to $mod@$ver" >&2; exit 1; }
done
if find "$out" -name '*.rej' -o -name '*.orig' | grep -q .; then
	echo "carry-gobgp: patching left .rej/.orig files" >&2; exit 1
fi

if [ "$check" = 1 ]; then
	if ! diff -r "$out" "$carry/v3" >"$tmp/diff"; then
		echo "carry-gobgp: third_party/gobgp/v3 is not $mod@$ver plus patches/ (run scripts/carry-gobgp.sh):" >&2
		head -40 "$tmp/diff" >&2
		exit 1
	fi
	echo "carry-gobgp: third_party/gobgp/v3 = $mod@$ver ($want) + $(ls "$carry"/patches/*.patch | wc -l) patch(es)"
	exit 0
fi
rm -rf "$carry/v3"
cp -r "$out" "$carry/v3"
echo "carry-gobgp: wrote third_party/gobgp/v3 = $mod@$ver ($want) + $(ls "$carry"/patches/*.patch | wc -l) patch(es)"
