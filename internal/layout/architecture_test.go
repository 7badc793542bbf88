package layout

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// architecture is the document whose import claims TestArchitectureImports
// holds to the code.
const architecture = "../../docs/ARCHITECTURE.md"

// TestArchitectureImports fails when docs/ARCHITECTURE.md does not tell the
// truth about an import: its ```imports block must name every package of
// the module that has non-test Go files, each with exactly the packages of
// ours its non-test files import (on Linux or another GOOS: the *_other.go
// files too), and every sentence of the Packages section that says what a
// package imports ("Imports `a`, `b` and `c`", "imports nothing of ours")
// must name the same set as the block.
func TestArchitectureImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("SKIP: the go tool is not on PATH, so the import graph cannot be read: %v", err)
	}
	doc, err := os.ReadFile(architecture)
	if err != nil {
		t.Fatal(err)
	}
	block, err := importsBlock(doc)
	if err != nil {
		t.Fatal(err)
	}
	real := map[string][]string{}
	for _, goos := range []string{"", "darwin"} {
		for p, imps := range productionImports(t, goTool, goos) {
			real[p] = union(real[p], imps)
		}
	}
	for _, v := range blockViolations(block, real) {
		t.Errorf("docs/ARCHITECTURE.md: %s", v)
	}
	for _, v := range proseViolations(doc, block) {
		t.Errorf("docs/ARCHITECTURE.md: %s", v)
	}
}

// productionImports runs `go list` on the module and returns, for every
// package with non-test Go files (for GOOS goos; "" is the host's), the
// packages of ours its non-test files import, short and sorted.
func productionImports(t *testing.T, goTool, goos string) map[string][]string {
	t.Helper()
	args := []string{"list", "-e", "-f", "{{.ImportPath}}\t{{len .GoFiles}}\t{{len .CgoFiles}}\t{{join .Imports \" \"}}", "./..."}
	out := goCmd(t, goTool, goos, args...)
	pkgs := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("go list: unexpected line %q", line)
		}
		if f[1] == "0" && f[2] == "0" {
			continue // tests only (or, for this GOOS, nothing)
		}
		var ours []string
		for _, imp := range strings.Fields(f[3]) {
			if strings.HasPrefix(imp, module+"/") {
				ours = append(ours, short(imp))
			}
		}
		slices.Sort(ours)
		pkgs[short(f[0])] = ours
	}
	return pkgs
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// importsBlock parses the ```imports fenced block of doc: one line per
// package, "package: import import ..." ("-" for none).
func importsBlock(doc []byte) (map[string][]string, error) {
	_, rest, ok := strings.Cut(string(doc), "\n```imports\n")
	if !ok {
		return nil, fmt.Errorf("docs/ARCHITECTURE.md has no ```imports block")
	}
	body, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		return nil, fmt.Errorf("docs/ARCHITECTURE.md: the ```imports block is not closed")
	}
	block := map[string][]string{}
	for i, line := range strings.Split(body, "\n") {
		pkg, imps, ok := strings.Cut(line, ":")
		pkg = strings.TrimSpace(pkg)
		if !ok || pkg == "" || strings.Contains(pkg, " ") {
			return nil, fmt.Errorf("```imports block, line %d: %q is not \"package: imports\"", i+1, line)
		}
		if _, dup := block[pkg]; dup {
			return nil, fmt.Errorf("```imports block, line %d: %s listed twice", i+1, pkg)
		}
		list := strings.Fields(imps)
		if slices.Equal(list, []string{"-"}) {
			list = nil
		}
		if !slices.IsSorted(list) {
			return nil, fmt.Errorf("```imports block, line %d: %s's imports are not sorted", i+1, pkg)
		}
		block[pkg] = list
	}
	return block, nil
}

// blockViolations compares the block with the real imports.
func blockViolations(block, real map[string][]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(real)) {
		doc, ok := block[p]
		if !ok {
			out = append(out, fmt.Sprintf("the ```imports block does not list package %s (it imports: %s)", p, orNone(real[p])))
			continue
		}
		if missing, extra := diff(real[p], doc); len(missing)+len(extra) > 0 {
			out = append(out, fmt.Sprintf("the ```imports block says %s imports %s; it imports %s (not listed: %s; not imported: %s)",
				p, orNone(doc), orNone(real[p]), orNone(missing), orNone(extra)))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(block)) {
		if _, ok := real[p]; !ok {
			out = append(out, fmt.Sprintf("the ```imports block lists %s, which is not a package with non-test Go files", p))
		}
	}
	return out
}

// diff returns what want has that got lacks (missing) and the reverse.
func diff(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "nothing of ours"
	}
	return strings.Join(l, " ")
}

var (
	// paragraphHead is the package a paragraph of the Packages section is
	// about: it starts with **`name`**.
	paragraphHead = regexp.MustCompile("^\\*\\*`([^`]+)`\\*\\*")
	// importsClaim is a sentence (or clause) whose subject is the
	// paragraph's package: "Imports ...", "; imports ...", ": imports ...",
	// up to its end (a full stop before a blank or the end, or a
	// semicolon).
	importsClaim = regexp.MustCompile(`(?:^|[.;:] )[Ii]mports ((?:[^.;]|\.\S)*)`)
	backticked   = regexp.MustCompile("`([^`]+)`")
)

// proseViolations checks every import claim of the Packages section's
// paragraphs against the block: the packages of ours a claim names in
// backticks (or none, for "nothing of ours") are exactly the block's.
func proseViolations(doc []byte, block map[string][]string) []string {
	_, section, _ := strings.Cut(string(doc), "\n## Packages\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for para := range strings.SplitSeq(section, "\n\n") {
		para = strings.Join(strings.Fields(para), " ")
		m := paragraphHead.FindStringSubmatch(para)
		if m == nil {
			continue
		}
		pkg := m[1]
		for _, c := range importsClaim.FindAllStringSubmatch(para, -1) {
			claim := c[1]
			var named []string
			for _, b := range backticked.FindAllStringSubmatch(claim, -1) {
				if _, ours := block[b[1]]; ours {
					named = append(named, b[1])
				}
			}
			slices.Sort(named)
			if len(named) == 0 && !strings.Contains(claim, "nothing of ours") {
				continue // about other modules (GoBGP's api)
			}
			want, ok := block[pkg]
			if !ok {
				out = append(out, fmt.Sprintf("the paragraph of %s says what it imports, but the ```imports block does not list it", pkg))
				continue
			}
			if !slices.Equal(named, want) {
				out = append(out, fmt.Sprintf("the paragraph of %s says it imports %s (%q); the ```imports block says %s",
					pkg, orNone(named), "imports "+claim, orNone(want)))
			}
		}
	}
	return out
}

// TestArchitectureCheckers checks the checkers on made-up input.
func TestArchitectureCheckers(t *testing.T) {
	doc := []byte("# x\n\n## Packages\n\n" +
		"**`a`** — does a. Imports `b` and `c`.\n\n" +
		"**`b`** — no codec imports it; it reads `ao.go`. Portable; imports nothing of ours.\n\n" +
		"**`c`** — Imports GoBGP's `api` types, never its server.\n\n" +
		"**`d`** — May import every package; imports `a` only.\n\n" +
		"## Imports\n\n```imports\na: b\nb: -\nc: -\nd: a b\n```\n")
	block, err := importsBlock(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"a": {"b"}, "b": nil, "c": nil, "d": {"a", "b"}}; !maps.EqualFunc(block, want, slices.Equal) {
		t.Fatalf("block %q, want %q", block, want)
	}
	got := proseViolations(doc, block)
	want := []string{
		`the paragraph of a says it imports b c ("imports ` + "`b` and `c`" + `"); the ` + "```imports block says b",
		`the paragraph of d says it imports a ("imports ` + "`a` only" + `"); the ` + "```imports block says a b",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("prose violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	real := map[string][]string{"a": {"b", "c"}, "b": nil, "d": {"a", "b"}, "e": {"a"}}
	got = blockViolations(block, real)
	want = []string{
		"the ```imports block says a imports b; it imports b c (not listed: c; not imported: nothing of ours)",
		"the ```imports block does not list package e (it imports: a)",
		"the ```imports block lists c, which is not a package with non-test Go files",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("block violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"```imports\na b\n```", "```imports\na: c b\n```", "```imports\na: b\na: c\n```", "no block", "```imports\na: b\n"} {
		if _, err := importsBlock([]byte("x\n" + bad)); err == nil {
			t.Errorf("importsBlock(%q): no error", bad)
		}
	}
}
