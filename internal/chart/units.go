package chart

import (
	"math"
	"strconv"
	"strings"
)

// countSuffixes and byteSuffixes are the names of 1000^i.
var (
	countSuffixes = []string{"", "k", "M", "G", "T", "P", "E"}
	byteSuffixes  = []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
)

// scaleOf returns the power of 1000 at or below |v| (0 for |v| < 1000).
func scaleOf(v float64) int {
	v = math.Abs(v)
	i := 0
	for v >= 1000 && i < len(countSuffixes)-1 {
		v /= 1000
		i++
	}
	return i
}

// decimalsFor returns the digits after the point needed to tell values
// step apart once divided by div, at most 3.
func decimalsFor(step, div float64) int {
	if step <= 0 {
		return 0
	}
	d := int(math.Ceil(-math.Log10(step/div) - 1e-9))
	return min(max(d, 0), 3)
}

// trimZeros removes trailing zeros after a decimal point ("1.50" → "1.5", "2.0" → "2").
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// TickLabel writes v as an axis label in unit, with as many digits as tell
// it from its neighbours step away: 1.5k, 2M, 500 KB, 25%, 2013.
func TickLabel(v float64, u Unit, step float64) string {
	if v == 0 {
		if u == Bytes {
			return "0 B"
		}
		if u == Percent {
			return "0%"
		}
		return "0"
	}
	switch u {
	case Count, Bytes:
		i := scaleOf(v)
		div := math.Pow(1000, float64(i))
		s := trimZeros(strconv.FormatFloat(v/div, 'f', decimalsFor(step, div), 64))
		if u == Bytes {
			return s + " " + byteSuffixes[i]
		}
		return s + countSuffixes[i]
	case Percent:
		return trimZeros(strconv.FormatFloat(v*100, 'f', decimalsFor(step*100, 1), 64)) + "%"
	default:
		return trimZeros(strconv.FormatFloat(v, 'f', decimalsFor(step, 1), 64))
	}
}

// Human writes v in unit to three significant digits: 950, 12.3k, 1.23 MB, 25.4%.
func Human(v float64, u Unit) string {
	switch u {
	case Count, Bytes:
		i := scaleOf(v)
		x := v / math.Pow(1000, float64(i))
		if math.Abs(x) >= 999.5 && i < len(countSuffixes)-1 { // 999,999 rounds to 1000k: say 1M
			i++
			x /= 1000
		}
		d := 2
		switch a := math.Abs(x); {
		case i == 0 && a == math.Trunc(a):
			d = 0
		case a >= 99.95:
			d = 0
		case a >= 9.995:
			d = 1
		}
		s := trimZeros(strconv.FormatFloat(x, 'f', d, 64))
		if u == Bytes {
			return s + " " + byteSuffixes[i]
		}
		return s + countSuffixes[i]
	case Percent:
		return trimZeros(strconv.FormatFloat(v*100, 'f', 1, 64)) + "%"
	case Year, Whole:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return trimZeros(strconv.FormatFloat(v, 'f', 3, 64))
	}
}

// Exact writes v in unit in full, with thousands separators: 1,234,567;
// 1,234,567 bytes; 25.4%; 2013.
func Exact(v float64, u Unit) string {
	switch u {
	case Count:
		return Thousands(v)
	case Bytes:
		if v == 1 {
			return "1 byte"
		}
		return Thousands(v) + " bytes"
	case Percent:
		return trimZeros(strconv.FormatFloat(v*100, 'f', 2, 64)) + "%"
	case Year, Whole:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return trimZeros(strconv.FormatFloat(v, 'f', 6, 64))
	}
}

// Shown writes a single value as charts show it beside a point or in a
// label: bytes in human units (Human), anything else exactly (Exact).
func Shown(v float64, u Unit) string {
	if u == Bytes {
		return Human(v, u)
	}
	return Exact(v, u)
}

// Thousands writes v with a comma between groups of three digits
// (1234567.5 → "1,234,567.5"; fractions to two digits at most).
func Thousands(v float64) string {
	s := trimZeros(strconv.FormatFloat(v, 'f', 2, 64))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// niceStep returns the 1, 2 or 5 times a power of ten at or above raw;
// counts and bytes never step by less than 1.
func niceStep(raw float64, u Unit) float64 {
	if raw <= 0 || bad(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64
	switch f := raw / p; {
	case f <= 1:
		step = p
	case f <= 2:
		step = 2 * p
	case f <= 5:
		step = 5 * p
	default:
		step = 10 * p
	}
	if (u == Count || u == Bytes || u == Year || u == Whole) && step < 1 {
		step = 1
	}
	return step
}

// valueTicks returns the ticks of a value axis over its range: about five
// evenly spaced labelled ticks on a linear axis; on a log axis one
// labelled tick per power of ten (1, 10, 100, 1k, ...) and unlabelled
// minor ticks at 2 to 9 times each when the axis spans at most six powers.
func valueTicks(a Axis) []Tick {
	var ticks []Tick
	if a.Type == Log {
		lo := int(math.Ceil(math.Log10(a.Min) - 1e-9))
		hi := int(math.Round(math.Log10(a.Max)))
		every := 1
		if hi-lo > 12 {
			every = (hi - lo + 11) / 12
		}
		for e := lo; e <= hi; e++ {
			v := math.Pow(10, float64(e))
			if (e-lo)%every == 0 {
				ticks = append(ticks, Tick{Value: v, Label: TickLabel(v, a.Unit, v)})
			} else {
				ticks = append(ticks, Tick{Value: v})
			}
			if hi-lo <= 6 && e < hi {
				for m := 2; m <= 9; m++ {
					ticks = append(ticks, Tick{Value: float64(m) * v})
				}
			}
		}
		return ticks
	}
	step := niceStep((a.Max-a.Min)/5, a.Unit)
	first := math.Ceil(a.Min/step-1e-9) * step
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > a.Max+step*1e-9 {
			break
		}
		v = roundTo12(v) // 0.3, not 0.30000000000000004
		ticks = append(ticks, Tick{Value: v, Label: TickLabel(v, a.Unit, step)})
	}
	return ticks
}

// roundTo12 rounds v to 12 significant digits.
func roundTo12(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}
