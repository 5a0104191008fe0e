package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A chart's small texts (each curve point's name, a reference line's or
// a mark's) are placed when the chart is drawn, once the data's position
// on the canvas is known: each at its preferred place beside its point,
// or, when its box there would overlap a text placed before it or a
// point's marker, a line higher or lower, or on the point's other side.
// Boxes are measured as a browser draws the SVG: a browser without
// Liberation Sans uses its own sans-serif (DejaVu Sans, about a fifth
// wider and taller), so the boxes are the wider and taller of the two.

// Box proportions of a text of font size s in a browser's sans-serif:
// DejaVu Sans reaches 0.93 s above its baseline and 0.24 s below; they
// are rounded up so that two boxes that do not touch here do not touch
// there.
const (
	boxAscent  = 0.95
	boxDescent = 0.25
	// labelGap is the room kept between two texts' boxes.
	labelGap = 1
	// markerRoom is the half-width of the square kept clear around each
	// point's marker (a dot of radius 2.5, a cross of 4).
	markerRoom = 3.5
)

// label is one text a chart writes beside a point.
type label struct {
	// at is the point named, in data coordinates.
	at    plotter.XY
	text  string
	style text.Style
	// dx is the gap between the point and the text's near end; dy the
	// offset of the text's box bottom from the point, before any move.
	dx, dy vg.Length
	// left writes the text at the point's left first (a reference line's
	// name at its right end).
	left bool
	// moves are the line offsets tried, in order, on each side: 0 is the
	// preferred place, 1 a line higher, -1 a line lower.
	moves []int
}

// Move orders of labels: a point's name goes up or down as far as three
// lines; a reference line's name stays on its line (above, else under
// it); a span's or mark's name, at the top, goes down.
var (
	pointMoves = []int{0, 1, -1, 2, -2, 3, -3}
	guideMoves = []int{0, -1}
	topMoves   = []int{0, -1, -2, -3}
)

// labelLayer is a plot.Plotter drawing a chart's labels without overlap,
// added to a plot after its lines so that the texts are on top. Labels
// are placed in the order added: reference lines and marks first, so that
// they stay by their lines and the points' names move around them.
type labelLayer struct {
	labels []label
	// points are the curves' points, whose markers no text may cover.
	points []plotter.XY
}

// add appends lb to the labels.
func (l *labelLayer) add(lb label) { l.labels = append(l.labels, lb) }

// Plot implements plot.Plotter: it places and draws every label.
func (l *labelLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var taken []vg.Rectangle
	for _, pt := range l.points {
		x, y := trX(pt.X), trY(pt.Y)
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: x - markerRoom, Y: y - markerRoom}, Max: vg.Point{X: x + markerRoom, Y: y + markerRoom}})
	}
	for _, lb := range l.labels {
		box := placeLabel(lb, vg.Point{X: trX(lb.at.X), Y: trY(lb.at.Y)}, c.Rectangle, taken)
		taken = append(taken, box)
		sty := lb.style
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		// gonum puts the baseline of a bottom-aligned text at y + size -
		// ascent; the box's bottom is a descent below the baseline.
		base := box.Min.Y + boxDescent*sty.Font.Size
		c.FillText(sty, vg.Point{X: box.Min.X, Y: base - sty.Font.Size + sty.FontExtents().Ascent}, lb.text)
	}
}

// labelSize is the box of a label's text as a browser draws it.
func labelSize(lb label) vg.Point {
	return vg.Point{X: lb.style.Width(lb.text) * legendSlack, Y: (boxAscent + boxDescent) * lb.style.Font.Size}
}

// placeLabel returns the box of lb named at point pt: the first place,
// nearest first (each of its moves on its preferred side, then on the
// other), that overlaps none of taken, moved into area; when each
// overlaps, the one overlapping least.
func placeLabel(lb label, pt vg.Point, area vg.Rectangle, taken []vg.Rectangle) vg.Rectangle {
	size := labelSize(lb)
	sides := []bool{lb.left, !lb.left}
	var best vg.Rectangle
	bestOverlap := math.Inf(1)
	for _, k := range lb.moves {
		for _, left := range sides {
			var r vg.Rectangle
			r.Min.X = pt.X + lb.dx
			if left {
				r.Min.X = pt.X - lb.dx - size.X
			}
			r.Min.Y = pt.Y + lb.dy + vg.Length(k)*(size.Y+labelGap)
			r.Max = r.Min.Add(size)
			r = inside(r, area)
			ov := 0.0
			for _, t := range taken {
				ov += overlapArea(r, t)
			}
			if ov == 0 {
				return r
			}
			if ov < bestOverlap {
				best, bestOverlap = r, ov
			}
		}
	}
	return best
}

// inside moves r into area where it fits (as far as it can where not).
func inside(r, area vg.Rectangle) vg.Rectangle {
	shift := vg.Point{}
	switch {
	case r.Max.X > area.Max.X:
		shift.X = area.Max.X - r.Max.X
	case r.Min.X < area.Min.X:
		shift.X = area.Min.X - r.Min.X
	}
	switch {
	case r.Max.Y > area.Max.Y:
		shift.Y = area.Max.Y - r.Max.Y
	case r.Min.Y < area.Min.Y:
		shift.Y = area.Min.Y - r.Min.Y
	}
	return vg.Rectangle{Min: r.Min.Add(shift), Max: r.Max.Add(shift)}
}

// overlapArea is the area two rectangles share, each grown by half of
// labelGap, in square points.
func overlapArea(a, b vg.Rectangle) float64 {
	w := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X) + labelGap
	h := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y) + labelGap
	if w <= 0 || h <= 0 {
		return 0
	}
	return float64(w * h)
}

// smallText is the style of a chart's small labels: 8 pt, in col.
func smallText(col color.Color) text.Style {
	f := plot.DefaultFont
	f.Variant = fontVariant
	return text.Style{Color: col, Font: font.From(f, vg.Points(8)), Handler: plot.DefaultTextHandler}
}
