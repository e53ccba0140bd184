package summary

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Category is one of the ten media-type groups of the cdx-summarize format.
// The numeric order is the order of the counters in a summary line.
type Category uint8

// The categories, in the order their counters appear in a summary line
// (cdx-summarize mime_counter.py).
const (
	HTML Category = iota
	Image
	Video
	Audio
	PDF
	JS
	JSON
	Font
	CSS
	Other
	numCategories
)

var categoryNames = [numCategories]string{"html", "image", "video", "audio", "pdf", "js", "json", "font", "css", "other"}

// String returns the category's name as used in counter names ("html", "image", ...).
func (c Category) String() string {
	if c < numCategories {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// NumCounters is the number of counters per key and period: 13 counts
// (n_) followed by 13 sizes in bytes (s_).
const NumCounters = 26

// Counter indexes inside a Counters array. The n_ counters come first, then
// the s_ counters in the same order: html, image, video, audio, pdf, js, json,
// font, css, other, http, https, total.
const (
	NHTML = iota
	NImage
	NVideo
	NAudio
	NPDF
	NJS
	NJSON
	NFont
	NCSS
	NOther
	NHTTP
	NHTTPS
	NTotal
	SHTML
	SImage
	SVideo
	SAudio
	SPDF
	SJS
	SJSON
	SFont
	SCSS
	SOther
	SHTTP
	SHTTPS
	STotal
)

// CounterNames holds the 26 counter names in output order, exactly as the
// cdx-summarize tool writes them: n_html ... n_total, s_html ... s_total.
var CounterNames = [NumCounters]string{
	"n_html", "n_image", "n_video", "n_audio", "n_pdf", "n_js", "n_json", "n_font", "n_css", "n_other", "n_http", "n_https", "n_total",
	"s_html", "s_image", "s_video", "s_audio", "s_pdf", "s_js", "s_json", "s_font", "s_css", "s_other", "s_http", "s_https", "s_total",
}

// counterIndex maps a counter name to its index.
var counterIndex = func() map[string]int {
	m := make(map[string]int, NumCounters)
	for i, n := range CounterNames {
		m[n] = i
	}
	return m
}()

// CounterIndex returns the index of the named counter ("n_html" → NHTML) and
// whether the name is one of the 26.
func CounterIndex(name string) (int, bool) {
	i, ok := counterIndex[name]
	return i, ok
}

// Scheme is the URL scheme class counted by the n_http/n_https counters.
type Scheme uint8

// Scheme values. SchemeNone is counted in neither n_http nor n_https (but
// still in n_total), as in cdx-summarize.
const (
	SchemeNone Scheme = iota
	SchemeHTTP
	SchemeHTTPS
)

// Counters is one key's counters for one period: counts and sizes (bytes of
// the compressed WARC record, the index "length" field), indexed by NHTML...STotal.
type Counters [NumCounters]int64

// Add counts one capture of category c, scheme sch and size bytes.
func (c *Counters) Add(cat Category, sch Scheme, size int64) {
	c[NTotal]++
	c[STotal] += size
	if cat < numCategories {
		c[int(cat)]++
		c[SHTML+int(cat)] += size
	}
	switch sch {
	case SchemeHTTP:
		c[NHTTP]++
		c[SHTTP] += size
	case SchemeHTTPS:
		c[NHTTPS]++
		c[SHTTPS] += size
	}
}

// Merge adds every counter of o to c, without overflow checks (see MergeChecked).
func (c *Counters) Merge(o *Counters) {
	for i := range c {
		c[i] += o[i]
	}
}

// ErrOverflow is the cause of an error for a sum of counters that does not
// fit an int64 (only malformed or hostile summaries come near it).
var ErrOverflow = errors.New("summary: counter sum overflows int64")

// MergeChecked adds every counter of o to c, as Merge, unless one of the
// sums would overflow int64 (or a counter is negative): it then returns
// ErrOverflow and leaves c unchanged.
func (c *Counters) MergeChecked(o *Counters) error {
	for i := range c {
		if _, ok := addCount(c[i], o[i]); !ok {
			return fmt.Errorf("%w (%s: %d + %d)", ErrOverflow, CounterNames[i], c[i], o[i])
		}
	}
	c.Merge(o)
	return nil
}

// addCount returns a+b for non-negative counters, and false when either is
// negative or the sum overflows int64.
func addCount(a, b int64) (int64, bool) {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return 0, false
	}
	return a + b, true
}

// IsZero reports whether every counter is zero.
func (c *Counters) IsZero() bool {
	return *c == Counters{}
}

// appendJSON appends the counters as a JSON object in the layout Python's
// json.dumps gives the original tool's dict: {"n_html": 1, "n_image": 0, ...}.
// With compact, counters that are not greater than zero are left out, as the
// original's --compact does.
func (c *Counters) appendJSON(b []byte, compact bool) []byte {
	b = append(b, '{')
	first := true
	for i, v := range c {
		if compact && v <= 0 {
			continue
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = append(b, '"')
		b = append(b, CounterNames[i]...)
		b = append(b, "\": "...)
		b = strconv.AppendInt(b, v, 10)
	}
	return append(b, '}')
}

// Period is a summary bucket: a year (2020) or, in monthly summaries, a
// year and month written as one number (202001). (The value of a
// MementoMap's "datetime" field, a datetime prefix of any length or a range
// of two, is ukvs.DatetimeValue.)
type Period int32

// Year returns the year of a yearly or monthly period.
func (p Period) Year() int {
	if p >= 100000 {
		return int(p) / 100
	}
	return int(p)
}

// String returns the period as written in a summary ("2020", "202001").
func (p Period) String() string { return strconv.Itoa(int(p)) }

// ParsePeriod parses a period as written in a summary line: normally 4 digits
// (a year) or 6 digits (year and month); 1 to 6 ASCII digits are accepted
// because the original tool writes periods as integers ("101" for 0001-01).
// Other forms give an error.
func ParsePeriod(s string) (Period, error) {
	if len(s) == 0 || len(s) > 6 {
		return 0, fmt.Errorf("summary: period %q is neither YYYY nor YYYYMM", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("summary: period %q is neither YYYY nor YYYYMM", s)
		}
		n = n*10 + int(s[i]-'0')
	}
	return Period(n), nil
}
