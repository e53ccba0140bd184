package chart

import (
	"math"
	"strconv"
	"time"
)

// maxTimeTicks is the most labelled ticks a date axis gets.
const maxTimeTicks = 8

// categoryBudget is the width of a category axis in characters: labels are
// thinned so that they fit it with two characters between them.
const categoryBudget = 110

// xTicks returns the ticks of the X axis.
func (c *Chart) xTicks() []Tick {
	switch {
	case c.X.Type == Time:
		return timeTicks(c.X.Min, c.X.Max)
	case c.X.Type == Category:
		return categoryTicks(c.Categories)
	case c.X.Type == Linear && (c.X.Unit == Year || c.X.Unit == Whole):
		return yearTicks(c.X.Min, c.X.Max)
	default:
		return valueTicks(c.X)
	}
}

// labelSteps are the spacings, in slots, tried for category and year labels.
var labelSteps = []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// spacedLabels returns which of n slots, each label at most longest
// characters, get a label within categoryBudget: every slot when they fit,
// else the slots i with (i+offset) a multiple of the finest step of
// labelSteps that fits — and always the first and the last slot, an
// inner label too close to either (nearer than two labels fit) left out.
func spacedLabels(n, longest, offset int) []bool {
	on := make([]bool, n)
	if n == 0 {
		return on
	}
	every := labelSteps[len(labelSteps)-1]
	for _, k := range labelSteps {
		if (n+k-1)/k*(longest+2) <= categoryBudget {
			every = k
			break
		}
	}
	// the fewest slots between two labels that keeps them apart
	gap := max(1, int(math.Ceil(float64(n*(longest+2))/categoryBudget)))
	for i := range on {
		on[i] = (i+offset)%every == 0 && i >= gap && n-1-i >= gap
	}
	on[0], on[n-1] = true, true
	return on
}

// categoryTicks labels every category, or every k-th one (k = 2, 5, 10,
// 20, ...) when the labels would not fit side by side, and always the
// first and the last. Categories that are consecutive years (2012, 2013,
// ...) are labelled on the multiples of k (2015, 2020), as yearTicks.
func categoryTicks(cats []string) []Tick {
	longest := 1
	for _, s := range cats {
		longest = max(longest, len([]rune(s)))
	}
	offset := 0
	if y, ok := consecutiveYears(cats); ok {
		offset = y
	}
	on := spacedLabels(len(cats), longest, offset)
	ticks := make([]Tick, 0, len(cats))
	for i, s := range cats {
		t := Tick{Value: float64(i)}
		if on[i] {
			t.Label = s
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// consecutiveYears reports whether cats are the years y, y+1, y+2, ...
// (written as four digits) and returns y.
func consecutiveYears(cats []string) (int, bool) {
	first := 0
	for i, s := range cats {
		y, err := strconv.Atoi(s)
		if err != nil || len(s) != 4 || (i > 0 && y != first+i) {
			return 0, false
		}
		if i == 0 {
			first = y
		}
	}
	return first, len(cats) > 0
}

// yearTicks returns the ticks of a linear Year axis from min to max
// (years, as the data's first and last): a tick on every whole year,
// labelled on every year when the labels fit, else on the multiples of 2,
// 5, 10, ... years, and always on the first and the last year. Axes longer
// than 200 years get no unlabelled ticks.
func yearTicks(min, max float64) []Tick {
	lo, hi := int(math.Ceil(min-1e-9)), int(math.Floor(max+1e-9))
	if hi < lo {
		return valueTicks(Axis{Type: Linear, Unit: Year, Min: min, Max: max}) // a span with no whole number: no year, no depth
	}
	on := spacedLabels(hi-lo+1, len(strconv.Itoa(hi)), lo)
	var ticks []Tick
	for i, l := range on {
		y := lo + i
		switch {
		case l:
			ticks = append(ticks, Tick{Value: float64(y), Label: strconv.Itoa(y)})
		case hi-lo <= 200:
			ticks = append(ticks, Tick{Value: float64(y)})
		}
	}
	return ticks
}

// timeStep is one candidate spacing of date ticks.
type timeStep struct {
	days, months, years int
}

var timeSteps = []timeStep{
	{days: 1}, {days: 2}, {days: 3}, {days: 7}, {days: 14},
	{months: 1}, {months: 2}, {months: 3}, {months: 6},
	{years: 1}, {years: 2}, {years: 5}, {years: 10}, {years: 20}, {years: 50}, {years: 100},
}

// timeTicks returns date ticks between min and max (Unix seconds): the
// finest of whole days, every second or third day, weeks (Mondays), half months (the 1st and 15th), months (1st of a month that is a
// multiple of the step) or years (multiples of the step) that gives at most
// maxTimeTicks ticks. Day ticks read 2012-03-05; month ticks read Mar, with
// the year on the first tick and on every January (Jan 2013); year ticks
// read 2013.
func timeTicks(min, max float64) []Tick {
	lo := time.Unix(int64(math.Floor(min)), 0).UTC()
	hi := time.Unix(int64(math.Ceil(max)), 0).UTC()
	for _, st := range timeSteps {
		ts := timesOf(lo, hi, st)
		if len(ts) > maxTimeTicks {
			continue
		}
		ticks := make([]Tick, len(ts))
		for i, t := range ts {
			var label string
			switch {
			case st.days > 0:
				label = t.Format("2006-01-02")
			case st.months > 0:
				label = t.Format("Jan")
				if i == 0 || t.Month() == time.January {
					label = t.Format("Jan 2006")
				}
			default:
				label = t.Format("2006")
			}
			ticks[i] = Tick{Value: float64(t.Unix()), Label: label}
		}
		return ticks
	}
	return nil
}

// timesOf returns the tick times of step st within [lo, hi].
func timesOf(lo, hi time.Time, st timeStep) []time.Time {
	var t time.Time
	switch {
	case st.days == 7:
		t = time.Date(lo.Year(), lo.Month(), lo.Day(), 0, 0, 0, 0, time.UTC)
		for t.Weekday() != time.Monday || t.Before(lo) {
			t = t.AddDate(0, 0, 1)
		}
	case st.days > 0:
		t = time.Date(lo.Year(), lo.Month(), lo.Day(), 0, 0, 0, 0, time.UTC)
		if t.Before(lo) {
			t = t.AddDate(0, 0, 1)
		}
		for st.days < 7 && (t.Unix()/86400)%int64(st.days) != 0 { // every 2nd or 3rd day since 1970-01-01
			t = t.AddDate(0, 0, 1)
		}
		for st.days == 14 && t.Day() != 1 && t.Day() != 15 { // the 1st and 15th of each month
			t = t.AddDate(0, 0, 1)
		}
	case st.months > 0:
		t = time.Date(lo.Year(), lo.Month(), 1, 0, 0, 0, 0, time.UTC)
		for t.Before(lo) || (int(t.Month())-1)%st.months != 0 {
			t = t.AddDate(0, 1, 0)
		}
	default:
		y := lo.Year()
		t = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		for t.Before(lo) || t.Year()%st.years != 0 {
			y++
			t = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	var out []time.Time
	for !t.After(hi) {
		out = append(out, t)
		if len(out) > maxTimeTicks {
			return out
		}
		switch {
		case st.days == 14:
			if t.Day() == 1 {
				t = t.AddDate(0, 0, 14)
			} else {
				t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			}
		case st.days > 0:
			t = t.AddDate(0, 0, st.days)
		case st.months > 0:
			t = t.AddDate(0, st.months, 0)
		default:
			t = t.AddDate(st.years, 0, 0)
		}
	}
	return out
}
