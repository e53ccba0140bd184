package chart

import "math"

// markedPoints is the most points a line series has for each to get a dot.
const markedPoints = 60

// shortRun is the widest a segment of a line series may be, as a share of
// the X axis drawn, for its points to be marked: narrower, its line is a
// few pixels at most and does not read as data.
const shortRun = 0.01

// PointMarks reports, for each point of line series i (in Points order),
// whether it is drawn with a marker: every point of a series of at most
// 60 points; in a longer series, the points of each segment (Segments,
// split at Chart.Gap) whose X extent is under 1 % of the X axis drawn (in
// powers of ten on a Log axis), so that a point alone, or a run of points
// too close together to read as a line (two counts 120 and 121 on a log
// axis), shows as dots the size of the other series' markers, and no point
// is drawn that the data does not hold. It reads the axis range Finish
// sets; for other kinds of chart it returns nil.
func (c *Chart) PointMarks(i int) []bool {
	if c.Kind != Line || i < 0 || i >= len(c.Series) {
		return nil
	}
	s := c.Series[i]
	marks := make([]bool, len(s.Points))
	if len(s.Points) <= markedPoints {
		for j := range marks {
			marks[j] = true
		}
		return marks
	}
	pos := func(x float64) float64 {
		if c.X.Type == Log {
			if x <= 0 {
				return math.Inf(-1)
			}
			return math.Log10(x)
		}
		return x
	}
	width := pos(c.X.Max) - pos(c.X.Min)
	at := 0
	for _, seg := range Segments(s.Points, c.Gap) {
		extent := pos(seg[len(seg)-1].X) - pos(seg[0].X)
		short := !(width > 0) || !(extent >= shortRun*width)
		for j := range seg {
			marks[at+j] = short
		}
		at += len(seg)
	}
	return marks
}

// Zoomable reports whether an interactive view of the chart offers zoom
// along its X axis: a line chart whose X axis is a Time axis or counts
// things (Unit Count or Bytes), which may span years or powers of ten.
// Other axes are read whole, and a zoom would only hide part of them: a
// share (Unit Percent, 0 to 100 %, such as a Lorenz curve's) or a few
// levels (Unit Plain, such as depths).
func (c *Chart) Zoomable() bool {
	return c.Kind == Line && (c.X.Type == Time || c.X.Unit == Count || c.X.Unit == Bytes)
}
