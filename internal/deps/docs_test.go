package deps

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vmbench/internal/golden"
	"vmbench/internal/textfmt"
)

// architectureCommand regenerates docs/architecture.md's package table.
const architectureCommand = "go test ./internal/deps/ -run TestArchitectureDoc -update"

// TestArchitectureDoc: docs/architecture.md's package table is the rules
// TestImportRules enforces (allowed, forbiddenExternal, signalOwners) and
// each package's synopsis, so the page cannot drift from them; -update
// rewrites it.
func TestArchitectureDoc(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "vmbench/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var b strings.Builder
	b.WriteString("| package | what it is | may import (of vmbench's packages) | must never depend on |\n|---|---|---|---|\n")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Doc string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		allow, ok := allowed[p.ImportPath]
		if !ok {
			t.Errorf("%s is not in the import rules (allowed)", p.ImportPath)
			continue
		}
		may := "everything"
		if allow != nil {
			may = "nothing"
			if len(allow) > 0 {
				may = shortList(allow)
			}
		}
		never := "–"
		if f := forbiddenExternal[p.ImportPath]; len(f) > 0 {
			never = strings.Join(f, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.TrimPrefix(p.ImportPath, "vmbench/"), synopsis(p.Doc), may, never)
	}
	fmt.Fprintf(&b, "\nOnly %s may import os/signal.\n", shortList(signalOwners))
	golden.CheckSection(t, "docs/architecture.md", architectureCommand, []byte(b.String()))
}

// synopsis is a package's synopsis without its leading "Package name"
// or "Command name", for a table cell.
func synopsis(doc string) string {
	if f := strings.SplitN(doc, " ", 3); len(f) == 3 && (f[0] == "Package" || f[0] == "Command") {
		doc = textfmt.Capitalize(f[2])
	}
	return strings.ReplaceAll(doc, "|", `\|`)
}

// shortList is import paths without the module's prefix, sorted, joined.
func shortList(paths []string) string {
	s := make([]string, len(paths))
	for i, p := range paths {
		s[i] = strings.TrimPrefix(p, "vmbench/")
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}

var (
	// mdLink is an inline Markdown link's target.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// codeSpan is an inline code span (links in it are text).
	codeSpan = regexp.MustCompile("`[^`]*`")
	// citedDoc is a document a source file names: docs/<page>.md or an
	// upper-case name (README.md); output files (report.md) are lower case.
	citedDoc = regexp.MustCompile(`\b(docs/[A-Za-z0-9_.-]+|[A-Z][A-Z0-9_-]*)\.md\b`)
)

// markdownFiles are README.md and the pages of docs/, from the root.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/ (%v)", err)
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

// proseLines are the lines of a Markdown file, those of fenced code
// blocks (and their fences) blank: line n is proseLines[n-1].
func proseLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	fenced := false
	for i, l := range lines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if fence {
			fenced = !fenced
		}
		if fence || fenced {
			lines[i] = ""
		}
	}
	return lines
}

// anchors are the fragments of a Markdown file's headings, as GitHub
// makes them (a repeated one numbered -1, -2...).
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	count := map[string]int{}
	for _, l := range proseLines(t, path) {
		h := strings.TrimLeft(l, "#")
		if len(h) == len(l) || len(l)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			continue
		}
		a := golden.Anchor(h)
		if n := count[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		count[a]++
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/*.md names a
// file or directory of the repository, and its #fragment a heading of
// the page; and README.md links every page of docs/ (its index).
func TestDocLinks(t *testing.T) {
	root := golden.RepoRoot(t)
	files := markdownFiles(t, root)
	indexed := map[string]bool{}
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for i, line := range proseLines(t, file) {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				where := fmt.Sprintf("%s:%d", rel, i+1)
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s links %s, which does not exist", where, target)
					continue
				}
				if file == files[0] {
					indexed[dest] = true
				}
				if frag != "" && (!strings.HasSuffix(dest, ".md") || !anchors(t, dest)[frag]) {
					t.Errorf("%s links %s: no heading of %s has the fragment #%s", where, target, filepath.Base(dest), frag)
				}
			}
		}
	}
	for _, page := range files[1:] {
		if !indexed[page] {
			t.Errorf("README.md does not link %s (its index of docs/ should)", filepath.Base(page))
		}
	}
}

// TestCitedDocsExist: every document a source file, campaign file,
// profile or build file names (docs/<page>.md, README.md...) is in the
// repository. Golden files and test data hold output, not citations.
func TestCitedDocsExist(t *testing.T) {
	root := golden.RepoRoot(t)
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "bin", "results", "data":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".yaml", ".vdb", ".sh":
		default:
			if d.Name() != "Makefile" && d.Name() != "run" {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		for _, doc := range citedDoc.FindAllString(string(b), -1) {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(doc))); err != nil {
				t.Errorf("%s cites %s, which the repository does not have", rel, doc)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files under %s", checked, root)
	}
}
