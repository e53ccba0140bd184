package chart

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/mementokit/mementokit/internal/atomicfile"
	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size is the size of the static charts: 25 × 14 cm, drawn at 144 dots per
// inch in PNG (1417 × 794 pixels).
var Size = struct{ W, H vg.Length }{25 * vg.Centimeter, 14 * vg.Centimeter}

// dpi is the resolution of PNG charts.
const dpi = 144

// Palette holds the series colours, in series order (Tableau 10 without its
// grey, which is OtherColor).
var Palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"}

// OtherColor is the colour of a series Fold made ("other (k)").
const OtherColor = "#bab0ac"

// SeriesColor returns the colour of series i of c, as "#rrggbb".
func (c *Chart) SeriesColor(i int) string {
	if len(c.Series[i].Folded) > 0 && strings.HasPrefix(c.Series[i].Name, "other") {
		return OtherColor
	}
	return Palette[i%len(Palette)]
}

// Markers are the point shapes of line series, in series order, so that a
// series whose points coincide with another's still shows: the outlined
// shapes are larger than the filled ones drawn over them.
var Markers = []string{"circle", "ring", "square", "triangle", "cross", "plus", "box", "pyramid"}

// Dashes are the line dash patterns of line series, in series order, as
// lengths in points (dash, gap, ...); nil is a solid line. The first series
// is solid and each later one dashed and drawn over the earlier ones, so a
// line equal to another's shows through the gaps of the one above it.
var Dashes = [][]float64{nil, {7, 3}, {3, 2}, {8, 2, 2, 2}, {1.5, 2.5}, {5, 5}, {10, 3}, {2, 2, 6, 2}}

// SeriesMarker returns the point shape of series i of c (one of Markers).
func (c *Chart) SeriesMarker(i int) string { return Markers[i%len(Markers)] }

// SeriesDash returns the dash pattern of line series i of c (one of
// Dashes; nil is solid). A folded "other" series is solid.
func (c *Chart) SeriesDash(i int) []float64 {
	if c.SeriesColor(i) == OtherColor {
		return nil
	}
	return Dashes[i%len(Dashes)]
}

// glyphOf returns the gonum glyph and radius (points) of a marker name.
func glyphOf(marker string) (draw.GlyphDrawer, vg.Length) {
	switch marker {
	case "ring":
		return draw.RingGlyph{}, 4
	case "square":
		return draw.SquareGlyph{}, 4
	case "triangle":
		return draw.TriangleGlyph{}, 4.5
	case "cross":
		return draw.CrossGlyph{}, 3.5
	case "plus":
		return draw.PlusGlyph{}, 4
	case "box":
		return draw.BoxGlyph{}, 2.5
	case "pyramid":
		return draw.PyramidGlyph{}, 3
	default:
		return draw.CircleGlyph{}, 2.5
	}
}

// lineStyleOf returns the line and the point glyph of line series i.
func (c *Chart) lineStyleOf(i int) (draw.LineStyle, draw.GlyphStyle) {
	clr := rgb(c.SeriesColor(i))
	line := draw.LineStyle{Color: clr, Width: 1.6}
	for _, d := range c.SeriesDash(i) {
		line.Dashes = append(line.Dashes, vg.Length(d))
	}
	shape, r := glyphOf(c.SeriesMarker(i))
	return line, draw.GlyphStyle{Color: clr, Radius: r, Shape: shape}
}

// Format returns the image format of a chart path from its extension:
// "svg" or "png". Other extensions are an error.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("chart %q: want a .svg or .png file", path)
	}
}

// Save renders c (after Finish) to path (.svg or .png) through a temporary
// file in the same folder renamed into place, so that an interrupted run
// never leaves a partial image.
// A path other than .svg or .png is Format's error, naming path; the
// other errors are Render's and those of creating or renaming the file
// (atomicfile.Write), each naming path; on error path is untouched.
func Save(path string, c *Chart) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return Render(w, c, format) })
}

// Render draws c (after Finish) in format ("svg" or "png") at Size to w.
// An unknown format is an error naming the chart and the format, a chart
// not finished is "chart ID: Render before Finish", and a drawing failure (a panic in gonum/plot) is an error "chart ID: drawing
// failed"; otherwise the error is w's.
func Render(w io.Writer, c *Chart, format string) (err error) {
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Size.W, Size.H), vgimg.UseDPI(dpi))}
	case "svg":
		cw = vgsvg.New(Size.W, Size.H)
	default:
		return fmt.Errorf("chart %s: unknown image format %q: want svg or png", c.ID, format)
	}
	defer func() {
		// gonum/plot panics on some degenerate ranges; Finish rules them out,
		// and a panic left is a bug reported as an error, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("chart %s: drawing failed: %v", c.ID, r)
		}
	}()
	if err := draw1(draw.New(cw), c); err != nil {
		return err
	}
	_, err = cw.WriteTo(w)
	return err
}

// Text styles.
var (
	regular = font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold    = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
	ink     = rgb("#222222")
	muted   = rgb("#666666")
	gridInk = rgb("#e3e3e3")
)

func style(f font.Font, size vg.Length, clr color.Color) text.Style {
	return text.Style{Font: font.From(f, size), Color: clr, Handler: plot.DefaultTextHandler}
}

func rgb(hex string) color.Color {
	var r, g, b uint8
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	return color.RGBA{R: r, G: g, B: b, A: 255}
}

// margin is the space around the drawing.
const margin = 10

// draw1 draws the whole chart: title at the top left, note at the bottom,
// legend in a column right of the plot, plot (or treemap) in the rest.
func draw1(dc draw.Canvas, c *Chart) error {
	if c.X.Ticks == nil && c.Kind != Treemap {
		return fmt.Errorf("chart %s: Render before Finish", c.ID)
	}
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	area := draw.Crop(dc, margin, -margin, margin, -margin)

	// A title or note wider than the drawing (a chart of several named
	// summaries) wraps onto a second line instead of running off the edge.
	title := style(bold, 15, ink)
	title.XAlign, title.YAlign = draw.XLeft, draw.YTop
	for _, line := range wrapText(title, c.Title, area.Max.X-area.Min.X, 2) {
		dc.FillText(title, vg.Point{X: area.Min.X, Y: area.Max.Y}, line)
		area.Max.Y -= title.Height(line) + 2
	}
	area.Max.Y -= 6

	if c.Note != "" {
		note := style(regular, 9, muted)
		note.XAlign, note.YAlign = draw.XLeft, draw.YBottom
		lines := wrapText(note, c.Note, area.Max.X-area.Min.X, 2)
		for i := len(lines) - 1; i >= 0; i-- {
			dc.FillText(note, vg.Point{X: area.Min.X, Y: area.Min.Y}, lines[i])
			area.Min.Y += note.Height(lines[i]) + 2
		}
		area.Min.Y += 4
	}

	if c.Kind == Treemap {
		// The legend lists every category with its value and share, so
		// that one too small for a label still reads.
		w := drawLegend(area, c)
		area.Max.X -= w + 12
		drawTreemap(area, c)
		return nil
	}
	if len(c.Series) > 1 {
		w := drawLegend(area, c)
		area.Max.X -= w + 12
	}
	if c.Y.Label != "" {
		// Drawn here, not by gonum/plot, which places it by the arithmetic
		// middle of the range (near the top of a log axis) and pads for it.
		lab := style(regular, 11, ink)
		lab.Rotation = math.Pi / 2
		lab.XAlign, lab.YAlign = draw.XCenter, draw.YTop
		mid := (area.Min.Y + area.Max.Y) / 2
		area.FillText(lab, vg.Point{X: area.Min.X, Y: mid}, c.Y.Label)
		area.Min.X += style(regular, 11, ink).Height(c.Y.Label) + 6
	}
	p, err := newPlot(c)
	if err != nil {
		return err
	}
	p.Draw(area)
	return nil
}

// legendWidthMax is the widest a legend column grows, as a share of the chart.
const legendWidthMax = 0.3

// drawLegend draws the series names with their colour swatches, top down,
// right-aligned to area, and returns the column's width. Names too long for
// the column are cut with an ellipsis.
func drawLegend(area draw.Canvas, c *Chart) vg.Length {
	sty := style(regular, 10, ink)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	swatch := vg.Length(10)
	if c.Kind == Line { // room for the dash and the marker
		swatch = 22
	}
	limit := vg.Length(float64(area.Max.X-area.Min.X) * legendWidthMax)
	entries := len(c.Series)
	colour := c.SeriesColor
	label := func(i int) string { return c.Series[i].Name }
	if c.Kind == Treemap {
		s := c.Series[0]
		total := s.Total()
		entries = len(c.Categories)
		colour = func(j int) string { return Palette[j%len(Palette)] }
		label = func(j int) string {
			return fmt.Sprintf("%s  %s (%.1f%%)", c.Categories[j], Shown(s.Values[j], c.Y.Unit), 100*s.Values[j]/total)
		}
	}
	names := make([]string, entries)
	width := vg.Length(0)
	for i := range names {
		names[i] = fitText(sty, label(i), limit-swatch-6)
		width = max(width, swatch+6+sty.Width(names[i]))
	}
	x := area.Max.X - width
	y := area.Max.Y - 8
	step := sty.Height("Mg") + 5
	order := make([]int, entries)
	for i := range order {
		order[i] = i
		if c.Kind == StackedBar { // top down, as the stack reads
			order[i] = entries - 1 - i
		}
	}
	for _, i := range order {
		clr := rgb(colour(i))
		if c.Kind == Line {
			line, dot := c.lineStyleOf(i)
			line.Width = 2
			area.StrokeLine2(line, x, y, x+swatch, y)
			area.DrawGlyph(dot, vg.Point{X: x + swatch/2, Y: y})
		} else {
			area.FillPolygon(clr, []vg.Point{{X: x, Y: y - swatch/2}, {X: x + swatch, Y: y - swatch/2}, {X: x + swatch, Y: y + swatch/2}, {X: x, Y: y + swatch/2}})
		}
		area.FillText(sty, vg.Point{X: x + swatch + 6, Y: y}, names[i])
		y -= step
	}
	return width
}

// wrapText breaks s at spaces into lines at most w wide in sty, at most
// maxLines of them; the last is cut with "…" (fitText) when s does not
// fit in them. A word wider than w is cut too.
func wrapText(sty text.Style, s string, w vg.Length, maxLines int) []string {
	if sty.Width(s) <= w || maxLines <= 1 {
		return []string{fitText(sty, s, w)}
	}
	var lines []string
	rest := s
	for len(lines) < maxLines-1 && sty.Width(rest) > w {
		cut := -1
		for i := len(rest) - 1; i > 0; i-- {
			if rest[i] == ' ' && sty.Width(rest[:i]) <= w {
				cut = i
				break
			}
		}
		if cut < 0 {
			break
		}
		lines = append(lines, rest[:cut])
		rest = strings.TrimLeft(rest[cut:], " ")
	}
	return append(lines, fitText(sty, rest, w))
}

// fitText cuts s with "…" until it is at most w wide in sty.
func fitText(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; sty.Width(t) <= w {
			return t
		}
	}
	return "…"
}

// newPlot builds the gonum plot of a line or bar chart: axes from the
// model's ranges and ticks, light horizontal grid lines, the data.
func newPlot(c *Chart) (*plot.Plot, error) {
	p := plot.New()
	p.BackgroundColor = nil
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = style(regular, 11, ink)
		a.Label.TextStyle.XAlign, a.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
		a.Label.Padding = 4
		a.Tick.Label = style(regular, 10, ink)
		a.LineStyle.Color = muted
		a.Tick.LineStyle.Color = muted
		a.Tick.Length = 5
		a.Padding = 0
	}
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Label.Text = c.X.Label
	p.X.Min, p.X.Max = c.X.Min, c.X.Max
	if c.Kind == Line && c.X.Type != Log {
		// A little room either side, so that the first and last points
		// and tick labels stay clear of the Y axis and the legend.
		pad := (c.X.Max - c.X.Min) * 0.015
		p.X.Min, p.X.Max = c.X.Min-pad, c.X.Max+pad
	}
	p.Y.Min, p.Y.Max = c.Y.Min, c.Y.Max
	p.X.Tick.Marker = plot.ConstantTicks(toTicks(c.X.Ticks))
	p.Y.Tick.Marker = plot.ConstantTicks(toTicks(c.Y.Ticks))
	if c.Y.Type == Log {
		if c.Y.Min <= 0 {
			return nil, fmt.Errorf("chart %s: log axis from %g", c.ID, c.Y.Min)
		}
		p.Y.Scale = plot.LogScale{}
	}
	if c.X.Type == Log {
		p.X.Scale = plot.LogScale{}
	}
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = gridInk
	g.Horizontal.Width = 0.7
	p.Add(g)
	switch c.Kind {
	case Line:
		p.Add(linesPlotter{c})
	default:
		p.Add(barsPlotter{c})
	}
	return p, nil
}

func toTicks(ts []Tick) []plot.Tick {
	out := make([]plot.Tick, len(ts))
	for i, t := range ts {
		out[i] = plot.Tick{Value: t.Value, Label: t.Label}
	}
	return out
}

// linesPlotter draws the line series: segments of points no more than
// Chart.Gap apart, and a marker on the points PointMarks marks; each
// series in its colour, dash and marker (SeriesDash, SeriesMarker).
type linesPlotter struct{ c *Chart }

func (l linesPlotter) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	// A folded "other" goes under the others; then the series in order,
	// each later (dashed) one over the earlier, so that where two lines
	// coincide the lower shows through the gaps of the upper.
	order := make([]int, 0, len(l.c.Series))
	for i := range l.c.Series {
		if l.c.SeriesColor(i) == OtherColor {
			order = append([]int{i}, order...)
		} else {
			order = append(order, i)
		}
	}
	for _, i := range order {
		s := l.c.Series[i]
		line, dot := l.c.lineStyleOf(i)
		marks := l.c.PointMarks(i)
		at := 0
		for _, seg := range Segments(s.Points, l.c.Gap) {
			var pts, dots []vg.Point
			for j, pt := range seg {
				if l.c.Y.Type == Log && pt.Y <= 0 {
					continue
				}
				v := vg.Point{X: trX(pt.X), Y: trY(pt.Y)}
				pts = append(pts, v)
				if marks[at+j] {
					dots = append(dots, v)
				}
			}
			at += len(seg)
			if len(pts) > 1 {
				dc.StrokeLines(line, dc.ClipLinesXY(pts)...)
			}
			for _, pt := range dots {
				if dc.Contains(pt) {
					dc.DrawGlyph(dot, pt)
				}
			}
		}
	}
}

// Segments splits points (X ascending) where two neighbours are more than
// gap apart; gap 0 gives one segment.
func Segments(points []Point, gap float64) [][]Point {
	if len(points) == 0 {
		return nil
	}
	var segs [][]Point
	start := 0
	for i := 1; i < len(points); i++ {
		if gap > 0 && points[i].X-points[i-1].X > gap {
			segs = append(segs, points[start:i])
			start = i
		}
	}
	return append(segs, points[start:])
}

// barsPlotter draws grouped or stacked bars in data coordinates: each
// category takes 80% of its slot, shared by the series side by side.
type barsPlotter struct{ c *Chart }

func (b barsPlotter) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	c := b.c
	base := 0.0
	if c.Y.Type == Log {
		base = c.Y.Min
	}
	const group = 0.8
	rect := func(clr color.Color, x0, x1, y0, y1 float64) {
		if c.Y.Type == Log && (y1 <= 0 || y0 <= 0) {
			return
		}
		pts := []vg.Point{{X: trX(x0), Y: trY(y0)}, {X: trX(x1), Y: trY(y0)}, {X: trX(x1), Y: trY(y1)}, {X: trX(x0), Y: trY(y1)}}
		dc.FillPolygon(clr, dc.ClipPolygonXY(pts))
	}
	for j := range c.Categories {
		if c.Kind == StackedBar {
			y := 0.0
			for i, s := range c.Series {
				v := s.Values[j]
				if v <= 0 {
					continue
				}
				rect(rgb(c.SeriesColor(i)), float64(j)-group/2, float64(j)+group/2, y, y+v)
				y += v
			}
			continue
		}
		n := float64(len(c.Series))
		w := group / n
		for i, s := range c.Series {
			x0 := float64(j) - group/2 + float64(i)*w
			pad := math.Min(w*0.08, 0.02)
			v := s.Values[j]
			if v == 0 || (c.Y.Type == Log && v <= 0) {
				continue
			}
			rect(rgb(c.SeriesColor(i)), x0+pad, x0+w-pad, base, v)
		}
	}
}

// drawTreemap fills area with the squarified rectangles of the first
// series, labelled with the category, its value and share where they fit.
func drawTreemap(area draw.Canvas, c *Chart) {
	s := c.Series[0]
	rects := Squarify(s.Values, Rect{X: float64(area.Min.X), Y: float64(area.Min.Y), W: float64(area.Max.X - area.Min.X), H: float64(area.Max.Y - area.Min.Y)})
	total := s.Total()
	name := style(bold, 11, color.White)
	name.XAlign, name.YAlign = draw.XLeft, draw.YTop
	detail := style(regular, 10, color.White)
	detail.XAlign, detail.YAlign = draw.XLeft, draw.YTop
	for j, r := range rects {
		if r.W <= 0 || r.H <= 0 {
			continue
		}
		clr := rgb(Palette[j%len(Palette)])
		x0, y0, x1, y1 := vg.Length(r.X), vg.Length(r.Y), vg.Length(r.X+r.W), vg.Length(r.Y+r.H)
		area.FillPolygon(clr, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		area.StrokeLines(draw.LineStyle{Color: color.White, Width: 1.5}, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
		lines := []string{c.Categories[j], Shown(s.Values[j], c.Y.Unit), fmt.Sprintf("%.1f%%", 100*s.Values[j]/total)}
		pad := vg.Length(5)
		y := y1 - pad
		for k, l := range lines {
			st := detail
			if k == 0 {
				st = name
			}
			if st.Width(l) > x1-x0-2*pad || y-st.Height(l) < y0+pad {
				break
			}
			area.FillText(st, vg.Point{X: x0 + pad, Y: y}, l)
			y -= st.Height(l) + 2
		}
	}
}
