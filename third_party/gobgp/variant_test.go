package gobgp_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A variant is the carried copy built with some of the patches only (and,
// for a test, a change of its own), with some of this directory's test
// files run against it in a module of their own: the way to show what a
// patch does, by running the same tests without it.

// variantTree is the pristine module (v3/ with every patch undone, checked
// against PRISTINE's hash by TestCopyIsPristinePlusPatches) with the
// patches keep says yes to applied in order, then edit, if not nil.
func variantTree(t *testing.T, keep func(patch string) bool, edit func(dir string)) string {
	t.Helper()
	dir, skipped := variantTreeSkipping(t, keep, false, edit)
	if len(skipped) > 0 {
		t.Fatalf("%v do not apply without the patches left out", skipped)
	}
	return dir
}

// variantTreeSkipping is variantTree that, with lenient, leaves out a
// patch that does not apply without the ones left out before it (one that
// builds on them) and returns those it left out so.
func variantTreeSkipping(t *testing.T, keep func(patch string) bool, lenient bool, edit func(dir string)) (string, []string) {
	t.Helper()
	dir := unpatched(t, "v3")
	var skipped []string
	for _, p := range patches(t) {
		if !keep(filepath.Base(p)) {
			continue
		}
		abs, _ := filepath.Abs(p)
		dry := exec.Command("patch", "-s", "-p1", "-f", "--dry-run", "-d", dir, "-i", abs)
		if out, err := dry.CombinedOutput(); err != nil {
			if lenient {
				skipped = append(skipped, filepath.Base(p))
				continue
			}
			t.Fatalf("%s does not apply without the patches left out: %v\n%s", p, err, out)
		}
		cmd := exec.Command("patch", "-s", "-p1", "-f", "--no-backup-if-mismatch", "-d", dir, "-i", abs)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, out)
		}
	}
	if edit != nil {
		edit(dir)
	}
	return dir, skipped
}

// runVariant runs `go test -run run` over files (of this directory; they
// may use package crafted) in a module whose GoBGP is tree, with env added,
// offline, and returns its output and whether it passed.
func runVariant(t *testing.T, tree string, files []string, run string, env ...string) (string, bool) {
	t.Helper()
	mod := t.TempDir()
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	// Our module's requirements (so every version is the one already in
	// the module cache), a name of its own, and GoBGP replaced by tree.
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module variant"))
	gomod = regexp.MustCompile(`(?m)^replace github.com/osrg/gobgp/v3 => .*$`).ReplaceAll(gomod, []byte("replace github.com/osrg/gobgp/v3 => "+tree))
	if !bytes.Contains(gomod, []byte(tree)) {
		t.Fatal("go.mod has no replace of github.com/osrg/gobgp/v3 to change")
	}
	must(t, os.WriteFile(filepath.Join(mod, "go.mod"), gomod, 0o644))
	sum, err := os.ReadFile("../../go.sum")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644))
	// Package crafted too, at the module's own path.
	for _, f := range append(slices.Clone(files), "crafted/crafted.go") {
		b, err := os.ReadFile(f)
		must(t, err)
		b = bytes.ReplaceAll(b, []byte(`"github.com/authbgp/authbgpd/third_party/gobgp/crafted"`), []byte(`"variant/crafted"`))
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(mod, f)), 0o755))
		must(t, os.WriteFile(filepath.Join(mod, f), b, 0o644))
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", run, ".")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recoveryPatch is the patch that recovers a panic of the receive path;
// the ones after it are the fixes, but for eventPatch.
const recoveryPatch = "0005-server-recover-receive-panics.patch"

// eventPatch adds an API (FSMEventOption), not a fix: its test,
// TestFSMEvents, does not build without it.
const eventPatch = "0027-server-fsm-event-hook.patch"

// prefixLimitPatch changes what GoBGP does after a prefix-limit shutdown
// (a retry after the idle hold), not a fault a peer's message causes:
// plugin's TestPrefixLimitSession and e2e's TestMaxPrefixes hold it.
const prefixLimitPatch = "0030-server-prefix-limit-restart-and-log.patch"

// injectOriginPanic makes the ORIGIN decoder of the copy in dir panic on
// the (invalid) origin value 0xee: a decoder made to panic on purpose.
func injectOriginPanic(t *testing.T) func(dir string) {
	return func(dir string) {
		p := filepath.Join(dir, "pkg/packet/bgp/bgp.go")
		b, err := os.ReadFile(p)
		must(t, err)
		sig := "func (p *PathAttributeOrigin) DecodeFromBytes(data []byte, options ...*MarshallingOption) error {\n"
		if !bytes.Contains(b, []byte(sig)) {
			t.Fatalf("%s: no %q to inject a panic into", p, sig)
		}
		b = bytes.Replace(b, []byte(sig), []byte(sig+"\tif len(data) > 3 && data[3] == 0xee {\n\t\tpanic(\"injected decoder panic\")\n\t}\n"), 1)
		must(t, os.WriteFile(p, b, 0o644))
	}
}

// TestCraftedBeforeFixes runs TestCraftedUpdates on the copy with the
// recovery patch and none of the fixes after it, and with its ORIGIN
// decoder made to panic on 0xee: every crafted message that panics there,
// and the injected panic, must reset its own session only (a NOTIFICATION
// of the message type's error, subcode 0), be logged with its location,
// and leave the server and a bystander session up. Without the recovery
// patch the test binary dies at the first one.
func TestCraftedBeforeFixes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds GoBGP anew (about a minute)")
	}
	tree := variantTree(t, func(p string) bool { return p <= recoveryPatch }, injectOriginPanic(t))
	out, ok := runVariant(t, tree, []string{"crafted_test.go"}, "^TestCraftedUpdates$", "CRAFTED_BEFORE_FIXES=1")
	if !ok {
		t.Fatalf("TestCraftedUpdates on the copy without the fixes failed:\n%s", out)
	}
}

// TestEachFixIsNeeded is how each fix's test was seen red: for each patch
// after the recovery patch (eventPatch aside), the tests of this directory
// that hold the fixes run on the copy with every patch but that one, and
// must fail. It takes about a minute a patch, so it runs only with
// CARRY_EACH_PATCH=1 (SECURITY.md gives its last result).
func TestEachFixIsNeeded(t *testing.T) {
	if os.Getenv("CARRY_EACH_PATCH") != "1" {
		t.Skip("set CARRY_EACH_PATCH=1 to build the copy once without each fix (about a minute each)")
	}
	files := []string{"crafted_test.go", "validate_test.go", "decoders_test.go", "dynamic_test.go", "serve_test.go"}
	for _, p := range patches(t) {
		name := filepath.Base(p)
		if name <= recoveryPatch || !strings.HasPrefix(name, "00") || name >= "0090" || name == eventPatch || name == prefixLimitPatch {
			continue
		}
		t.Run(strings.TrimSuffix(name, ".patch"), func(t *testing.T) {
			tree, skipped := variantTreeSkipping(t, func(q string) bool { return q != name }, true, nil)
			if len(skipped) > 0 {
				t.Logf("left out too, as they build on %s: %v", name, skipped)
			}
			out, ok := runVariant(t, tree, files, "^(TestCraftedUpdates|TestValidateNotificationCodes|TestDecodersRefuseShortInput|TestRelayedAsReceived|TestSRPolicyDecoding|TestAttributesPrintAndMarshal|TestOpenFQDNCapability|TestMUPSourceAddressLength|TestSRSegmentListWithoutWeightToAPI|TestTunnelEncapKeepsEveryByte|TestDynamicNeighborUnknownPeerGroup)$")
			if ok {
				t.Fatalf("the tests pass without %s: nothing holds it", name)
			}
			var failed []string
			for _, l := range strings.Split(out, "\n") {
				if s := strings.TrimSpace(l); strings.HasPrefix(s, "--- FAIL") || strings.HasPrefix(s, "panic:") {
					failed = append(failed, s)
				}
			}
			t.Logf("without %s: %s", name, strings.Join(slices.Compact(failed), "; "))
			fmt.Fprintln(os.Stderr)
		})
	}
}
