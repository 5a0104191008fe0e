package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
)

// htmlCSS is the page's only style sheet, inline: screen and print (A4
// and Letter alike: the page size is left to the printer, margins fixed).
//
//go:embed html.css
var htmlCSS string

//go:embed html.tmpl
var htmlText string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"css":    func() template.CSS { return template.CSS(htmlCSS) },
	"svg":    inlineSVG,
	"isLeft": func(a Align) bool { return a == Left },
	"strong": func(t *Table, i int) bool { return t.strong(i) },
}).Parse(htmlText))

// WriteHTML writes d as one self-contained HTML page: no script, no
// external resource (a Content-Security-Policy forbids loading any), the
// charts as inline SVG, tables with captions and header cells scoped for
// screen readers, their Strong rows set apart, worded cells and
// preformatted text wrapped to the page's width (a table wider still, on
// a narrow screen, in a focusable scrolling region), and a print style
// that keeps tables and charts whole on a page. A section whose heading
// is the title (the one test of a report) is not headed again.
func (d *Document) WriteHTML(w io.Writer) error {
	for _, s := range d.Sections {
		for _, t := range s.Tables {
			if err := t.Table.check(); err != nil {
				return fmt.Errorf("%s: %s: %w", s.Heading, t.Caption, err)
			}
		}
	}
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, d); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// svgProlog is what precedes an SVG document's root element: the XML
// declaration, a DOCTYPE and comments, which HTML does not take inline.
var svgProlog = regexp.MustCompile(`^(?s)\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*`)

// inlineSVG is a chart's SVG for inlining in HTML: its prolog removed.
// The SVG is trusted: our charts are drawn by gonum/plot, which escapes
// every text it writes (svgo's Text).
func inlineSVG(svg []byte) template.HTML {
	return template.HTML(svgProlog.ReplaceAll(svg, nil)) //nolint:gosec // drawn by LatencyChart/LineChart, text escaped
}
