package peers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestOneWriter: GoBGP's peer mutators and the socket key setters are
// called from apply.go only (the reconciler's one place that acts).
func TestOneWriter(t *testing.T) {
	// Every mutator of GoBGP's peers and of socket keys, by method name,
	// whatever the receiver: a field (m.bgp, m.socks), the pass's look
	// (p.socks), an interface value, a method value.
	mutators := map[string]bool{"AddPeerIn": true, "UpdatePeer": true, "UpdatePeerIn": true, "DeletePeerIn": true, "AddPeerGroupIn": true,
		"DeletePeerGroup": true, "AddDynamicNeighbor": true, "DeleteDynamicNeighbor": true, "ResetPeerIn": true,
		"SetListenerKey": true, "DeleteListenerKey": true, "SetConnKey": true,
		"SetListenerAO": true, "DeleteListenerAO": true, "SetConnAO": true,
		"DialMD5": true, "DialAO": true,
		"SetPolicies": true, "SetPolicyAssignmentIn": true, "UpdatePeerGroup": true}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fs := token.NewFileSet()
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			s, ok := n.(*ast.SelectorExpr)
			if !ok || !mutators[s.Sel.Name] {
				return true
			}
			if name == "apply.go" {
				seen[s.Sel.Name] = true
				return true
			}
			t.Errorf("%s: %s outside apply.go", fs.Position(s.Pos()), s.Sel.Name)
			return true
		})
	}
	// The check is only as good as its list: every mutator is used, in
	// apply.go (a renamed method would otherwise drop out unseen).
	for name := range mutators {
		if !seen[name] && name != "UpdatePeer" && name != "UpdatePeerIn" { // never used: it re-keys listeners (see readd)
			t.Errorf("apply.go does not call %s: is the list above stale?", name)
		}
	}
}
