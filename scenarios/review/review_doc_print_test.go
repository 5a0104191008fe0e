package review

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// printMarginMM is the left and right page margin of report/html.css's
// @page rule, in mm.
const printMarginMM = 12

// printableWidth is p's width less the page margins, in CSS px (96 per
// inch, 72 points per inch).
func (p paper) printableWidth() int {
	return int(p.width*96/72 - 2*printMarginMM*96/25.4)
}

var (
	cspMeta     = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`)
	overflowOut = regexp.MustCompile(`OVERFLOW\[(.*?)\]`)
)

// measureOverflow lists every table, figure, chart, fact list, warning
// and preformatted block that reaches past the window, and the page's own
// scroll width when it does, into the page as OVERFLOW[...].
const measureOverflow = `<script>
const w = document.documentElement.clientWidth, wide = [];
for (const el of document.querySelectorAll("table, figure, svg, pre, dl, .warning")) {
  const r = el.getBoundingClientRect();
  if (r.right > w + 0.5) {
    const label = el.querySelector("caption, figcaption");
    wide.push(el.tagName.toLowerCase() + " " + JSON.stringify((label ? label.textContent : el.textContent).trim().slice(0, 50)) + " to " + Math.round(r.right) + " px");
  }
}
if (document.documentElement.scrollWidth > w) wide.push("the page to " + document.documentElement.scrollWidth + " px");
const out = document.createElement("p");
out.textContent = "OVER" + "FLOW[" + wide.join("; ") + "]"; // not the marker in this source
document.body.appendChild(out);
</script>
`

// fitsPrintWidth lays page (the report's HTML) out with its print rules
// at p's printable width in Chromium and fails the test for each block
// wider than that: a table or chart a printout would cut off. The page
// itself runs no script (its Content-Security-Policy forbids one), so a
// copy without that policy, its print rules applied on screen, measures
// itself.
func fitsPrintWidth(t *testing.T, bin, name, page string, p paper) {
	t.Helper()
	measured := cspMeta.ReplaceAllString(page, "")
	measured = strings.ReplaceAll(measured, "@media print {", "@media all {")
	measured = strings.Replace(measured, "</body>", measureOverflow+"</body>", 1)
	if measured == page || !strings.Contains(measured, "@media all {") {
		t.Fatalf("%s: the page has no Content-Security-Policy meta, print rules or body to measure with", name)
	}
	src := filepath.Join(t.ArtifactDir(), name+"-"+p.name+"-width.html")
	if err := os.WriteFile(src, []byte(measured), 0o644); err != nil {
		t.Fatal(err)
	}
	w := p.printableWidth()
	dom, _ := runChromium(t, bin, src, "--window-size="+strconv.Itoa(w)+",2000", "--hide-scrollbars", "--dump-dom")
	m := overflowOut.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: the measuring script left no result in the page", name)
	}
	if m[1] != "" {
		t.Errorf("%s on %s (%d px printable): wider than the page: %s", name, p.name, w, m[1])
	}
}

func TestPrintableWidth(t *testing.T) {
	// A4 210 mm less 24: 186 mm, 702 px (rounded down); Letter 8.5 in less
	// 24 mm: 725 px.
	if a, l := a4.printableWidth(), letter.printableWidth(); a != 702 || l != 725 {
		t.Errorf("printable widths A4 %d, Letter %d px; want 702 and 725", a, l)
	}
}
