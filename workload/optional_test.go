package workload

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestOptionalListsEveryInterface: every interface type the package
// declares, beside the core Tool, Config and Observer, is an optional
// part that Optional names, and Optional names no other.
func TestOptionalListsEveryInterface(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if _, isIface := ts.Type.(*ast.InterfaceType); isIface && ts.Name.IsExported() {
					declared = append(declared, ts.Name.Name)
				}
			}
			return true
		})
	}
	var listed []string
	for _, o := range optional {
		listed = append(listed, o.name)
	}
	declared = slices.DeleteFunc(declared, func(n string) bool { return n == "Tool" || n == "Config" || n == "Observer" })
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("interfaces declared %v,\noptional listed %v", declared, listed)
	}
	if got := Optional(&recorderConfig{}); len(got) != 0 {
		t.Errorf("the test tool implements %v, want none", got)
	}
}
