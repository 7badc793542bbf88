package layout

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/authbgp/authbgpd"

// codecs are the pure codec packages (and their subpackages): digests,
// parsers, keys, capture, and the key operations on sockets (tcpsock). They
// must build without the daemon.
var codecs = []string{"keys", "frame", "capture/...", "tcpopt", "md5auth/...", "tcpsock/...", "srv6policy", "tcpao", "kdrops"}

// leaves are packages that import nothing of ours at all, in their
// production code or their tests: small tools with one job that any
// package may use (filewatch: tell when files may have changed; aocount: the
// one TCP-AO counter type).
var leaves = []string{"filewatch", "aocount", "internal/testlog"}

// runtime are the daemon's runtime packages (and their subpackages), which
// no codec may import, directly or through another package, in its
// production code or its tests.
var runtime = []string{"plugin", "config", "metrics", "status", "peers", "speaker", "srv6", "httpapi", "shadow", "dropwatch"}

// isRuntime reports whether import path p is a runtime package.
func isRuntime(p string) bool {
	for _, r := range runtime {
		if p == module+"/"+r || strings.HasPrefix(p, module+"/"+r+"/") {
			return true
		}
	}
	return false
}

// TestCodecsImportNoRuntime fails when a codec package depends on a
// runtime package, naming the codec, the forbidden import and the package
// that imports it.
func TestCodecsImportNoRuntime(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: the go tool is not on PATH, so the import graph cannot be read: %v", err)
	}
	for _, goos := range []string{"", "darwin"} { // the *_other.go files too
		graph := importGraph(t, goTool, goos, codecs)
		for _, v := range violations(graph) {
			t.Errorf("GOOS=%s: %s", orHost(goos), v)
		}
	}
}

// goCmd runs the go tool with args in the module root, for GOOS goos ("":
// the host's), and returns its output; a failure fails t.
func goCmd(t *testing.T, goTool, goos string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(goTool, args...)
	cmd.Dir = "../.." // the module root
	if goos != "" {
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func orHost(goos string) string {
	if goos == "" {
		return "host"
	}
	return goos
}

// importGraph runs `go list -deps -test` on the codecs and returns, for
// every package listed, its imports. Test variants and external test
// packages are folded into their package (see strip).
func importGraph(t *testing.T, goTool, goos string, pkgs []string) map[string][]string {
	t.Helper()
	args := []string{"list", "-deps", "-test", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}"}
	for _, c := range pkgs {
		args = append(args, "./"+c)
	}
	out := goCmd(t, goTool, goos, args...)
	graph := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "\t")
		pkg = strip(pkg)
		for _, imp := range strings.Fields(imports) {
			graph[pkg] = append(graph[pkg], strip(imp))
		}
	}
	return graph
}

// strip folds go list's test variants into their package: "p [p.test]"
// and the external test package "p_test [p.test]" are p.
func strip(p string) string {
	p, _, _ = strings.Cut(p, " ")
	return strings.TrimSuffix(p, "_test")
}

// violations lists, for every codec package in graph, each runtime package
// it reaches, with the path of imports that gets there.
func violations(graph map[string][]string) []string {
	var out []string
	var roots []string
	for p := range graph {
		if isCodec(p) {
			roots = append(roots, p)
		}
	}
	slices.Sort(roots)
	for _, root := range roots {
		for _, path := range runtimePaths(graph, root) {
			out = append(out, fmt.Sprintf("codec package %s must not import runtime package %s (import path: %s)",
				short(root), short(path[len(path)-1]), strings.Join(mapShort(path), " -> ")))
		}
	}
	return out
}

func isCodec(p string) bool {
	for _, c := range codecs {
		base, sub := strings.CutSuffix(c, "/...")
		if p == module+"/"+base || (sub && strings.HasPrefix(p, module+"/"+base+"/")) {
			return true
		}
	}
	return false
}

// runtimePaths walks graph breadth-first from root and returns the
// shortest import path to each runtime package reached (not walking past
// one).
func runtimePaths(graph map[string][]string, root string) [][]string {
	prev := map[string]string{root: ""}
	queue := []string{root}
	var found [][]string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range graph[p] {
			if _, seen := prev[imp]; seen {
				continue
			}
			prev[imp] = p
			if !isRuntime(imp) {
				queue = append(queue, imp)
				continue
			}
			path := []string{imp}
			for q := p; q != ""; q = prev[q] {
				path = append([]string{q}, path...)
			}
			found = append(found, path)
		}
	}
	return found
}

func short(p string) string { return strings.TrimPrefix(p, module+"/") }

func mapShort(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = short(p)
	}
	return out
}

// TestLeavesImportNothingOfOurs fails when a leaf package (or its tests)
// imports any package of this module, naming the import.
func TestLeavesImportNothingOfOurs(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: the go tool is not on PATH, so the import graph cannot be read: %v", err)
	}
	for _, goos := range []string{"", "darwin", "windows"} {
		graph := importGraph(t, goTool, goos, leaves)
		for _, v := range leafViolations(graph) {
			t.Errorf("GOOS=%s: %s", orHost(goos), v)
		}
	}
}

// leafViolations lists every import of one of our packages by a leaf.
func leafViolations(graph map[string][]string) []string {
	var out []string
	for _, l := range leaves {
		p := module + "/" + l
		for _, imp := range graph[p] {
			if imp != p && (imp == module || strings.HasPrefix(imp, module+"/")) {
				out = append(out, fmt.Sprintf("leaf package %s must import nothing of ours, imports %s", l, short(imp)))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestViolationsNamesTheImport checks the checker on a made-up graph.
func TestViolationsNamesTheImport(t *testing.T) {
	graph := map[string][]string{
		module + "/md5auth":    {"fmt", module + "/keys", module + "/capture"},
		module + "/keys":       {"fmt"},
		module + "/capture":    {module + "/frame", module + "/metrics"},
		module + "/frame":      {"errors"},
		module + "/metrics":    {module + "/status"},
		module + "/srv6policy": {module + "/keys"},
	}
	got := violations(graph)
	want := []string{
		"codec package capture must not import runtime package metrics (import path: capture -> metrics)",
		"codec package md5auth must not import runtime package metrics (import path: md5auth -> capture -> metrics)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	leaf := map[string][]string{module + "/filewatch": {"os", "github.com/fsnotify/fsnotify", module + "/filewatch", module + "/config"}}
	if got, want := leafViolations(leaf), []string{"leaf package filewatch must import nothing of ours, imports config"}; !slices.Equal(got, want) {
		t.Fatalf("leaf violations: %q, want %q", got, want)
	}
}
