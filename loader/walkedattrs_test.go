package loader

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// TestWalkedAttrsCoverWalk checks that every dwarf.Attr* constant this
// package's code names is in walkedAttrs: the walker's reader skips the
// others, so an attribute read but not listed would silently read as absent.
func TestWalkedAttrsCoverWalk(t *testing.T) {
	// Files that read DIEs with readers of their own, before the walk,
	// not with the walker's.
	ownReaders := map[string]bool{"split.go": true, "supplement.go": true, "partial.go": true}
	byName := map[string]dwarf.Attr{} // normalized DW_AT_ name -> code
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for a := dwarf.Attr(1); a < 0x4000; a++ {
		if name, ok := strings.CutPrefix(a.String(), "DW_AT_"); ok {
			byName[norm(name)] = a
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	keep := walkedAttrs()
	fset := token.NewFileSet()
	seen := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || ownReaders[file] {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Name != "dwarf" || !strings.HasPrefix(sel.Sel.Name, "Attr") || sel.Sel.Name == "AttrSet" {
				return true
			}
			seen++
			a, ok := byName[norm(strings.TrimPrefix(sel.Sel.Name, "Attr"))]
			if !ok {
				t.Errorf("%s: cannot map %s to a DW_AT_ code", fset.Position(sel.Pos()), sel.Sel.Name)
				return true
			}
			if !keep.Has(a) {
				t.Errorf("%s: the walk reads %s, which walkedAttrs leaves out", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if seen < 20 {
		t.Fatalf("found %d dwarf.Attr* uses; the scan is broken", seen)
	}
}
