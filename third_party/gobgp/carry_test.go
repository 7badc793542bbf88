// Package gobgp_test checks the carried GoBGP module: the committed copy in
// v3/ must be exactly the pristine module PRISTINE names plus patches/, in
// order. It works without the network: it undoes the patches on a copy of
// v3/ and checks the result's dirhash against the published h1: hash, so
// one byte edited in v3/ (or a file added or removed) fails it.
package gobgp_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pristine reads PRISTINE: module, version and h1 lines.
func pristine(t *testing.T) (mod, ver, h1 string) {
	t.Helper()
	f, err := os.Open("PRISTINE")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch k {
		case "module":
			mod = v
		case "version":
			ver = v
		case "h1":
			h1 = v
		}
	}
	if mod == "" || ver == "" || !strings.HasPrefix(h1, "h1:") {
		t.Fatalf("PRISTINE: module %q version %q h1 %q: all three are needed", mod, ver, h1)
	}
	return mod, ver, h1
}

// hash1 is golang.org/x/mod/sumdb/dirhash.Hash1 of dir as module@version.
func hash1(dir, prefix string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return "", err
	}
	slices.Sort(files)
	sum := sha256.New()
	for _, f := range files {
		if strings.Contains(f, "\n") {
			return "", fmt.Errorf("file name %q has a newline", f)
		}
		r, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(sum, "%x  %s\n", h.Sum(nil), prefix+"/"+f)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(sum.Sum(nil)), nil
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func patches(t *testing.T) []string {
	t.Helper()
	ps, err := filepath.Glob("patches/*.patch")
	if err != nil || len(ps) == 0 {
		t.Fatalf("patches/: %v (%d patches): the carry exists for its patch", err, len(ps))
	}
	slices.Sort(ps)
	return ps
}

// unpatched returns a copy of tree with every patch undone, newest first.
func unpatched(t *testing.T, tree string) string {
	t.Helper()
	if _, err := exec.LookPath("patch"); err != nil {
		t.Fatalf("patch(1) is needed to check the carried GoBGP (Debian package patch; scripts/deps.sh installs it): %v", err)
	}
	dir := filepath.Join(t.TempDir(), "v3")
	copyTree(t, tree, dir)
	ps := patches(t)
	for i := len(ps) - 1; i >= 0; i-- {
		abs, _ := filepath.Abs(ps[i])
		cmd := exec.Command("patch", "-s", "-R", "-p1", "-f", "--no-backup-if-mismatch", "-d", dir, "-i", abs)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("v3/ is not pristine + patches: %s does not undo cleanly: %v\n%s", ps[i], err, out)
		}
	}
	return dir
}

func TestCopyIsPristinePlusPatches(t *testing.T) {
	mod, ver, want := pristine(t)
	got, err := hash1(unpatched(t, "v3"), mod+"@"+ver)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("v3/ with patches/ undone hashes to %s, not %s@%s's published %s: the copy was edited outside patches/ (regenerate it with scripts/carry-gobgp.sh)", got, mod, ver, want)
	}
}

// TestOneByteEditedFails shows the check above can fail: one byte of a
// copied file changed, outside and inside a patched file, and a file added.
func TestOneByteEditedFails(t *testing.T) {
	mod, ver, want := pristine(t)
	for _, tc := range []struct{ name, file string }{
		{"unpatched file", "pkg/server/peer.go"},
		{"patched file", "pkg/server/fsm.go"},
		{"added file", "pkg/server/extra.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := filepath.Join(t.TempDir(), "v3")
			copyTree(t, "v3", tree)
			p := filepath.Join(tree, tc.file)
			b, err := os.ReadFile(p)
			if os.IsNotExist(err) {
				b, err = []byte("package server\n"), nil
			} else if err == nil {
				i := len(b) - 2 // the last line's last byte: not in any hunk's context
				b[i] ^= 0x20
			}
			if err == nil {
				err = os.WriteFile(p, b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := hash1(unpatched(t, tree), mod+"@"+ver)
			if err != nil {
				t.Fatal(err)
			}
			if got == want {
				t.Fatalf("an edit of %s went unseen", tc.file)
			}
		})
	}
}

// carried names every patch the carry may hold and a line it must add:
// a new patch is a decision, recorded here, in README.md and, for a
// security fix, in SECURITY.md.
var carried = map[string]string{
	"0001-server-peer-dial-control-hook.patch":                     "+func PeerDialControlOption(",
	"0002-server-one-incoming-channel.patch":                       "+\t\tcase v := <-s.incoming.Out():",
	"0003-server-stopbgp-clears-global-after-peers-freed.patch":    "+\t\ts.bgpConfig.Global = oc.Global{}",
	"0004-server-list-peers-over-several-turns.patch":              "+const listPeerBatch = 50",
	"0005-server-recover-receive-panics.patch":                     "+func ReceiveErrorOption(f ReceiveErrorHook) ServerOption {",
	"0006-packet-bgp-decoders-bound-reads.patch":                   "+\tif len(data) < l.Labels.Len()+8 {",
	"0007-table-as4-path-before-as-path.patch":                     "+\t\tif as4AttrPos < asAttrPos {",
	"0008-server-no-revalidation-after-treat-as-withdraw.patch":    "+\t\t\t\tif handling != bgp.ERROR_HANDLING_TREAT_AS_WITHDRAW {",
	"0009-server-unknown-message-type.patch":                       "+\t\tif m == nil {",
	"0010-table-adjrib-unconfigured-family.patch":                  "+\t\tif t == nil {",
	"0011-packet-bgp-valid-code-for-family-not-negotiated.patch":   "+\teSubCodeOptional := uint8(BGP_ERROR_SUB_OPTIONAL_ATTRIBUTE_ERROR)",
	"0012-packet-bgp-ip6-extended-community-length.patch":          "+\tif len(data) < 20 {",
	"0013-packet-bgp-update-section-length-underflow.patch":        "+\t\tif wLen > routelen {",
	"0014-packet-bgp-srv6-unknown-subtlv.patch":                    "+\t\t\tstlvs = stlvs[t.Len():]",
	"0015-packet-bgp-confederation-empty-as-path.patch":            "+\t\t\t\tif len(p.Value) == 0 {",
	"0016-packet-bgp-prefix-sid-srv6-declared-lengths.patch":       "+\tsrv6InformationSubTLVMinValueLen = 21",
	"0017-packet-bgp-relay-unknown-prefix-sid-parts.patch":         "+\t\treturn append([]byte(nil), t.raw...), nil",
	"0018-packet-bgp-sr-policy-nlri-and-candidate-path-name.patch": "+\ts.Endpoint = data[p : p+endpointLen]",
	"0019-packet-bgp-label-stack-bottom-of-stack.patch":            "+\t\t\treturn NewMessageError(BGP_ERROR_UPDATE_MESSAGE_ERROR, BGP_ERROR_SUB_MALFORMED_ATTRIBUTE_LIST, nil, \"MPLS label stack missing bottom-of-stack bit\")",
	"0020-packet-bgp-sr-bsid-without-sid.patch":                    "+\t\tt.BSID = &BSID{Value: make([]byte, 0)}",
	"0021-packet-bgp-fqdn-domain-name-length.patch":                "+\tc.DomainName = string(data[hostNameLen+2 : hostNameLen+2+int(domainNameLen)])",
	"0022-packet-bgp-mup-source-address-length.patch":              "+\t\treturn malformedAttrListErr(fmt.Sprintf(\"Invalid Source Address length: %d\", r.SourceAddressLength))",
	"0023-apiutil-sr-segment-list-without-weight.patch":            "+\t\t\t\tif sv.Weight != nil {",
	"0024-packet-bgp-tunnel-encap-every-byte.patch":                "+\t\treturn NewMessageError(BGP_ERROR_UPDATE_MESSAGE_ERROR, BGP_ERROR_SUB_MALFORMED_ATTRIBUTE_LIST, nil, \"Not enough TunnelEncapTLV bytes available\")",
	"0025-table-as4-merge-no-empty-segment.patch":                  "+\t\tif len(newParams) == 0 {",
	"0026-server-dynamic-neighbor-unknown-peer-group.patch":        "+\t\t\treturn fmt.Errorf(\"no such peer-group: %s\", r.PeerGroup)",
	"0027-server-fsm-event-hook.patch":                             "+func FSMEventOption(f FSMEventHook) ServerOption {",
	"0028-server-best-path-watch.patch":                            "+func (s *BgpServer) WatchBestPaths(ctx context.Context, fn func(changes []BestPathChange, init bool)) error {",
	"0030-server-prefix-limit-restart-and-log.patch":               "+\t\t\t\th.changeadminState(adminStateUp)",
	"0033-server-graceful-stop.patch":                              "+func (s *BgpServer) StopGraceful() {",
	"0034-server-best-path-watch-end-of-rib.patch":                 "+func (s *BgpServer) WatchBestPathsAndEndOfRIB(",
	"0035-server-listener-control-hook.patch":                      "+func ListenerControlOption(",
	"0031-policy-per-peer-and-from-config.patch":                   "+func peerPolicy(peer *peer, dir table.PolicyDirection, path *table.Path, options *table.PolicyOptions) *table.Path {",
	"0090-fuzz-receive-path.patch":                                 "+func FuzzRecvUpdate(f *testing.F) {",
}

// carriedDirs are what patches may change: the server, and the receive
// path it runs for every message a peer sends (the decoders, the table's
// processing of a received UPDATE, and its conversion to the API that
// every listing of a received path runs), and pkg/config/ocpolicy (the
// table's conversion and build of a configured routing policy, exported).
var carriedDirs = []string{"b/pkg/server/", "b/pkg/packet/bgp/", "b/internal/pkg/table/", "b/pkg/apiutil/", "b/pkg/config/ocpolicy/"}

func TestPatchesAreKnown(t *testing.T) {
	for _, p := range patches(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		must, ok := carried[filepath.Base(p)]
		if !ok {
			t.Errorf("%s is not one of the patches carried (carry_test.go's carried, README.md)", p)
		} else if !strings.Contains(string(b), "\n"+must) {
			t.Errorf("%s does not add %q", p, strings.TrimPrefix(must, "+"))
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f, ok := strings.CutPrefix(line, "+++ "); ok && !slices.ContainsFunc(carriedDirs, func(d string) bool { return strings.HasPrefix(f, d) }) {
				t.Errorf("%s changes %s: the carry changes only %v", p, f, carriedDirs)
			}
		}
	}
	if n := len(patches(t)); n != len(carried) {
		t.Errorf("%d patches in patches/, %d named in carried", n, len(carried))
	}
}
