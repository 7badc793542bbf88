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
	mutators := map[string]bool{"AddPeer": true, "UpdatePeer": true, "DeletePeer": true, "AddPeerGroup": true,
		"DeletePeerGroup": true, "AddDynamicNeighbor": true, "DeleteDynamicNeighbor": true, "ResetPeer": true,
		"SetListenerKey": true, "DeleteListenerKey": true, "SetConnKey": true}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fs := token.NewFileSet()
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "apply.go" {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && mutators[s.Sel.Name] {
				if x, ok := s.X.(*ast.SelectorExpr); ok && (x.Sel.Name == "bgp" || x.Sel.Name == "socks") {
					t.Errorf("%s: %s.%s outside apply.go", fs.Position(c.Pos()), x.Sel.Name, s.Sel.Name)
				}
			}
			return true
		})
	}
}
