package review

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// screenWidth is the window a reviewer reads the page in: a laptop's
// 1280 px.
const screenWidth = "1280"

var screenOut = regexp.MustCompile(`SCREEN\[(.*?)\]`)

// measureScreen lists, into the page as SCREEN[...], each table and
// preformatted text wider than its box (hidden behind a scroll bar), and
// each pair of texts of one chart whose boxes, as the browser draws them,
// overlap by more than half a pixel each way.
const measureScreen = `<script>
const bad = [];
const name = el => JSON.stringify(el.textContent.trim().slice(0, 40));
for (const el of document.querySelectorAll(".table-wrap, pre")) {
  if (el.scrollWidth > el.clientWidth + 1) bad.push(el.tagName.toLowerCase() + " " + name(el.querySelector("caption") || el) + " is " + el.scrollWidth + " px wide in " + el.clientWidth + " px");
}
document.querySelectorAll("figure.chart svg").forEach((svg, i) => {
  const texts = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "").map(t => [t.textContent, t.getBoundingClientRect()]);
  for (let a = 0; a < texts.length; a++) {
    for (let b = a + 1; b < texts.length; b++) {
      const [ta, ra] = texts[a], [tb, rb] = texts[b];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left), h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 0.5 && h > 0.5) bad.push("chart " + (i + 1) + ": " + JSON.stringify(ta) + " and " + JSON.stringify(tb) + " overlap");
    }
  }
});
const out = document.createElement("p");
out.textContent = "SCR" + "EEN[" + bad.join("; ") + "]"; // not the marker in this source
document.body.appendChild(out);
</script>
`

// fitsScreen lays page (the report's HTML) out in Chromium at
// screenWidth and fails the test for each table or preformatted text
// that runs past its box (a reader would scroll it sideways) and each
// two texts of a chart that overlap (point names, a reference line's,
// legend entries). The page runs no script, so a copy without its
// Content-Security-Policy measures itself.
func fitsScreen(t *testing.T, bin, name, page string) {
	t.Helper()
	measured := cspMeta.ReplaceAllString(page, "")
	measured = strings.Replace(measured, "</body>", measureScreen+"</body>", 1)
	if measured == page {
		t.Fatalf("%s: the page has no Content-Security-Policy meta or body to measure with", name)
	}
	src := filepath.Join(t.ArtifactDir(), name+"-screen.html")
	if err := os.WriteFile(src, []byte(measured), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := runChromium(t, bin, src, "--window-size="+screenWidth+",2000", "--hide-scrollbars", "--dump-dom")
	m := screenOut.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("%s: the measuring script left no result in the page", name)
	}
	if m[1] != "" {
		t.Errorf("%s at %s px: %s", name, screenWidth, m[1])
	}
}
