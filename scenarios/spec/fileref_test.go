package spec

import (
	"fmt"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vmbench/internal/golden"
)

// fileRefRoots are the kinds of file docs/campaign-file.md documents: the
// Go type each decodes into and the package directory (from the
// repository's root) whose non-test files declare it. The types their
// fields use are looked up by name in every directory listed here.
//
// >>> This list is the page's one tie to where the file types live. When
// >>> they move, change Dir, move this file beside them if you like
// >>> (fileRefCommand then names the new package), and run the command
// >>> with -update.
var fileRefRoots = []struct{ Dir, Type, Title string }{
	{"scenarios/spec", "Campaign", "Campaign file"},
	{"scenarios/spec", "Suite", "Block-suite file"},
	{"scenarios/spec", "Review", "Review file"},
}

// fileRefCommand regenerates docs/campaign-file.md's reference.
const fileRefCommand = "go test ./scenarios/spec/ -run TestFileRef -update"

// TestFileRef: docs/campaign-file.md's reference is what the file types
// declare (their yaml keys, Go types and doc comments), so the page
// cannot drift from the code; -update rewrites it.
func TestFileRef(t *testing.T) {
	decls := parseFileRefDirs(t)
	golden.CheckSection(t, "docs/campaign-file.md", fileRefCommand, []byte(decls.render(t)))
}

// fileRefDecls are the declarations the reference is generated from.
type fileRefDecls struct {
	types  map[string]*fileRefType
	consts map[string]string // exported constants with a literal value, as a file would write it
	// decoders are the types with an UnmarshalYAML method: a named type
	// of a builtin one without it (an enum: Driver) reads as the builtin.
	decoders map[string]bool
	order    []string          // types in the order of their first section
	done     map[string]string // type -> the anchor of its section
	queue    []fileRefSection
}

type fileRefType struct {
	name string
	doc  string
	expr ast.Expr
}

// fileRefSection is a struct type to document, at path in a file.
type fileRefSection struct {
	typ     string
	heading string
	level   string
}

func parseFileRefDirs(t *testing.T) *fileRefDecls {
	t.Helper()
	d := &fileRefDecls{types: map[string]*fileRefType{}, consts: map[string]string{}, decoders: map[string]bool{}, done: map[string]string{}}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, r := range fileRefRoots {
		if seen[r.Dir] {
			continue
		}
		seen[r.Dir] = true
		files, err := filepath.Glob(filepath.Join(golden.RepoRoot(t), filepath.FromSlash(r.Dir), "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s (%v)", r.Dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			d.collect(af)
		}
	}
	return d
}

// collect records af's type declarations, exported literal constants
// and UnmarshalYAML methods.
func (d *fileRefDecls) collect(af *ast.File) {
	for _, decl := range af.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.Name == "UnmarshalYAML" {
			d.decoders[typeName(fd.Recv.List[0].Type)] = true
		}
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				doc := s.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				d.types[s.Name.Name] = &fileRefType{name: s.Name.Name, doc: doc.Text(), expr: s.Type}
			case *ast.ValueSpec:
				if gd.Tok != token.CONST || len(s.Values) != len(s.Names) {
					continue
				}
				for i, n := range s.Names {
					if lit, ok := s.Values[i].(*ast.BasicLit); ok && n.IsExported() {
						v := lit.Value
						if lit.Kind == token.STRING {
							v, _ = strconv.Unquote(v)
						}
						d.consts[n.Name] = v
					}
				}
			}
		}
	}
}

func (d *fileRefDecls) render(t *testing.T) string {
	var b strings.Builder
	for _, r := range fileRefRoots {
		if _, ok := d.types[r.Type]; !ok {
			t.Fatalf("fileRefRoots: no type %s in %s", r.Type, r.Dir)
		}
		d.queue = append(d.queue, fileRefSection{typ: r.Type, heading: r.Title, level: "##"})
		for len(d.queue) > 0 {
			s := d.queue[0]
			d.queue = d.queue[1:]
			d.section(&b, s)
		}
	}
	var values []string
	for _, name := range d.order {
		if _, isStruct := d.types[name].expr.(*ast.StructType); !isStruct {
			values = append(values, name)
		}
	}
	if len(values) > 0 {
		b.WriteString("## Value types\n\n")
		for _, name := range values {
			fmt.Fprintf(&b, "### `%s`\n\n%s", name, goDocMarkdown(d.types[name].doc))
		}
	}
	return b.String()
}

// section writes the heading, the type's doc and a table of s's keys.
func (d *fileRefDecls) section(b *strings.Builder, s fileRefSection) {
	typ := d.types[s.typ]
	d.done[s.typ] = golden.Anchor(s.heading)
	d.order = append(d.order, s.typ)
	st := typ.expr.(*ast.StructType)
	fmt.Fprintf(b, "%s %s\n\n", s.level, s.heading)
	b.WriteString(goDocMarkdown(typ.doc))
	b.WriteString("| key | value | meaning |\n|---|---|---|\n")
	names := map[string]string{} // Go field name -> yaml key
	for _, f := range st.Fields.List {
		if key := yamlKey(f); key != "" {
			for _, n := range f.Names {
				names[n.Name] = key
			}
		}
	}
	var prev *ast.Field // the last field with a doc comment
	for _, f := range st.Fields.List {
		key := yamlKey(f)
		if key == "" || len(f.Names) != 1 {
			continue
		}
		path := key
		if s.level != "##" {
			path = strings.TrimSuffix(strings.SplitN(s.heading, "`", 3)[1], ":") + "." + key
		}
		root := strings.SplitN(s.heading, ":", 2)[0]
		value := d.typeText(f.Type, root, path)
		meaning := d.fieldDoc(f, names, prev)
		if f.Doc != nil {
			prev = f
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", key, value, meaning)
	}
	b.WriteString("\n")
}

// yamlKey is a field's yaml key; "" for a field the files do not have.
func yamlKey(f *ast.Field) string {
	if f.Tag == nil || len(f.Names) == 0 || !f.Names[0].IsExported() {
		return ""
	}
	tag, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return ""
	}
	key, _, _ := strings.Cut(reflect.StructTag(tag).Get("yaml"), ",")
	if key == "-" {
		return ""
	}
	return key
}

// typeText says in words what a key of Go type e takes, linking the
// sections of nested mappings and value types (queued for writing when
// first met). root is the file's title, path the key's.
func (d *fileRefDecls) typeText(e ast.Expr, root, path string) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return d.typeText(e.X, root, path)
	case *ast.ArrayType:
		return "list of " + d.typeText(e.Elt, root, path)
	case *ast.MapType:
		return "mapping of " + d.typeText(e.Key, root, path) + " to " + d.typeText(e.Value, root, path)
	case *ast.SelectorExpr:
		if _, ok := d.types[e.Sel.Name]; ok {
			return d.typeText(e.Sel, root, path)
		}
		if x, ok := e.X.(*ast.Ident); ok && x.Name == "yaml" && e.Sel.Name == "Node" {
			return "any YAML"
		}
		return fmt.Sprintf("%s.%s", e.X, e.Sel.Name)
	case *ast.Ident:
		switch e.Name {
		case "string":
			return "string"
		case "bool":
			return "true or false"
		case "int", "int32", "int64", "uint", "uint32", "uint64":
			return "integer"
		case "float32", "float64":
			return "number"
		case "any":
			return "any value"
		}
		typ, ok := d.types[e.Name]
		if !ok {
			return e.Name
		}
		if d.plain(e.Name) {
			return d.typeText(typ.expr, root, path)
		}
		if _, isStruct := typ.expr.(*ast.StructType); !isStruct {
			if _, done := d.done[e.Name]; !done {
				d.done[e.Name] = golden.Anchor(e.Name)
				d.order = append(d.order, e.Name)
			}
			return fmt.Sprintf("[%s](#%s)", e.Name, d.done[e.Name])
		}
		if _, done := d.done[e.Name]; !done {
			heading := fmt.Sprintf("%s: `%s:`", root, path)
			d.done[e.Name] = golden.Anchor(heading)
			d.queue = append(d.queue, fileRefSection{typ: e.Name, heading: heading, level: "###"})
		}
		return fmt.Sprintf("mapping ([keys](#%s))", d.done[e.Name])
	}
	return fmt.Sprintf("%T", e)
}

// plain says the named type name reads as the builtin type it is
// declared as (type Driver string, without an UnmarshalYAML): the page
// writes its keys as that type's, their values listed in their own docs.
func (d *fileRefDecls) plain(name string) bool {
	typ, ok := d.types[name]
	if !ok || d.decoders[name] {
		return false
	}
	id, ok := typ.expr.(*ast.Ident)
	return ok && id.Name != name && d.types[id.Name] == nil
}

// fileRefWords are field names that the doc comments also use as words
// ("the VMs' databases"): one is written as its key only where it starts
// its own field's comment.
var fileRefWords = []string{"VMs"}

// goName is a Go identifier that a doc comment may use for a field or a
// constant.
var goName = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*\b`)

// fieldDoc is f's doc comment as one table cell: Go field names of the
// struct written as their keys, constants as their values. A field
// without a comment says "See `key`." when the comment of prev (the last
// field before it that has one) names it, and otherwise gives the first
// sentence of its type's doc comment, if any.
func (d *fileRefDecls) fieldDoc(f *ast.Field, keys map[string]string, prev *ast.Field) string {
	own := f.Names[0].Name
	text := strings.TrimSpace(f.Doc.Text() + " " + f.Comment.Text())
	if text == "" {
		if prev != nil && slices.Contains(goName.FindAllString(prev.Doc.Text(), -1), own) {
			return fmt.Sprintf("See `%s`.", keys[prev.Names[0].Name])
		}
		if typ, ok := d.types[typeName(f.Type)]; ok && !d.plain(typ.name) {
			text = new(doc.Package).Synopsis(typ.doc)
		}
		if text == "" {
			return ""
		}
	}
	parts := strings.Split(strings.Join(strings.Fields(text), " "), "`")
	for i := 0; i < len(parts); i += 2 { // outside code spans
		first := i == 0 && strings.HasPrefix(parts[0], own)
		parts[i] = goName.ReplaceAllStringFunc(parts[i], func(w string) string {
			// The field's own name only where it starts the comment ("VMs,
			// when set, runs ... block-worker VMs"): elsewhere it is a word.
			// So are fileRefWords in other fields' comments.
			defer func() { first = false }()
			if key, ok := keys[w]; ok && (first && w == own || w != own && !slices.Contains(fileRefWords, w)) {
				return "`" + key + "`"
			}
			if v, ok := d.consts[w]; ok {
				return "`" + v + "`"
			}
			return w
		})
		parts[i] = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(parts[i])
	}
	return strings.Join(parts, "`")
}

// typeName is the name of the type e refers to, through pointers and
// slices ("" for maps and builtin types not declared in the package).
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.ArrayType:
		return typeName(e.Elt)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// goDocMarkdown renders a Go doc comment as Markdown, with a blank line
// after it.
func goDocMarkdown(text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	var p comment.Parser
	pr := comment.Printer{TextWidth: -1}
	return string(pr.Markdown(p.Parse(text))) + "\n"
}
