package chart

import (
	"math"
	"time"
)

// maxTimeTicks is the most labelled ticks a date axis gets.
const maxTimeTicks = 8

// categoryBudget is the width of a category axis in characters: labels are
// thinned so that they fit it with two characters between them.
const categoryBudget = 110

// xTicks returns the ticks of the X axis.
func (c *Chart) xTicks() []Tick {
	switch c.X.Type {
	case Time:
		return timeTicks(c.X.Min, c.X.Max)
	case Category:
		return categoryTicks(c.Categories)
	default:
		return valueTicks(c.X)
	}
}

// categoryTicks labels every category, or every k-th one (k = 2, 5, 10,
// 20, ...) when the labels would not fit side by side.
func categoryTicks(cats []string) []Tick {
	longest := 1
	for _, s := range cats {
		longest = max(longest, len([]rune(s)))
	}
	every := 1
	for _, k := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		every = k
		if (len(cats)+k-1)/k*(longest+2) <= categoryBudget {
			break
		}
	}
	ticks := make([]Tick, 0, len(cats))
	for i, s := range cats {
		t := Tick{Value: float64(i)}
		if i%every == 0 {
			t.Label = s
		}
		ticks = append(ticks, t)
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
