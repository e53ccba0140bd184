package flagvalue

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

func TestParseBytes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"4096", 4096}, {"96MiB", 96 << 20}, {"96mib", 96 << 20}, {"96 MiB", 96 << 20},
		{"1GiB", 1 << 30}, {"64KiB", 64 << 10}, {"64k", 64 << 10}, {"2T", 2 << 40}, {"1TiB", 1 << 40},
		{"1KB", 1000}, {"5MB", 5e6}, {"3GB", 3e9}, {"1tb", 1e12}, {"10B", 10}, {" 7 ", 7},
		{"8388607TiB", 8388607 << 40},
	} {
		got, err := ParseBytes(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "MiB", "0", "-5", "1.5GiB", "12XB", "0x10", "8388608TiB", "18014398509481985k", "9223372036854775808"} {
		if n, err := ParseBytes(bad); !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("ParseBytes(%q) = %d, %v; want an error wrapping ErrSize naming it", bad, n, err)
		}
	}
}

// TestFormatBytesRoundTrip: what FormatBytes writes, ParseBytes reads back.
func TestFormatBytesRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{96 << 20, "96MiB"}, {1 << 30, "1GiB"}, {1536, "1536"}, {1000, "1000"}, {3 << 40, "3TiB"}, {1, "1"}} {
		got := FormatBytes(tt.n)
		if got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if back, err := ParseBytes(got); err != nil || back != tt.n {
			t.Errorf("ParseBytes(FormatBytes(%d) = %q) = %d, %v", tt.n, got, back, err)
		}
	}
}

// TestBytesFlag: a Bytes flag shows its default in the usage text as
// FormatBytes writes it, and a bad value fails the parse naming the flag.
func TestBytesFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var usage strings.Builder
	fs.SetOutput(&usage)
	mem := Bytes(96 << 20)
	fs.Var(&mem, "mem", "sort memory")
	if err := fs.Parse([]string{"-mem", "1GiB"}); err != nil || mem != 1<<30 {
		t.Fatalf("-mem 1GiB: %d, %v", mem, err)
	}
	fs.PrintDefaults()
	if !strings.Contains(usage.String(), "(default 96MiB)") {
		t.Errorf("usage %q does not show the default 96MiB", usage.String())
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse([]string{"-mem", "lots"}); err == nil || !strings.Contains(err.Error(), "-mem") || !strings.Contains(err.Error(), `invalid size "lots"`) {
		t.Errorf("-mem lots: %v", err)
	}
}

func TestParseTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Time
	}{
		{"2026-12-01T00:00:00Z", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-12-01T02:00:00+02:00", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"20261201000000", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"2026", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"202612", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"20230426095158263", time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC)},
	} {
		got, err := ParseTime(tt.in)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"20261301", "123", "202612011200001234"} {
		if _, err := ParseTime(bad); !errors.Is(err, timestamp.ErrInvalid) || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseTime(%q): %v, want an error wrapping timestamp.ErrInvalid naming it", bad, err)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-12-01", "2026-12-01 00:00:00"} {
		if _, err := ParseTime(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("ParseTime(%q): %v, want an error naming it", bad, err)
		}
	}
}

func ExampleParseBytes() {
	for _, s := range []string{"96MiB", "1GiB", "64k", "4096", "1KB"} {
		n, _ := ParseBytes(s)
		fmt.Println(s, n, FormatBytes(n))
	}
	// Output:
	// 96MiB 100663296 96MiB
	// 1GiB 1073741824 1GiB
	// 64k 65536 64KiB
	// 4096 4096 4KiB
	// 1KB 1000 1000
}

// TestParseSpan: an RFC 3339 instant becomes its UTC timestamp (17 digits
// with milliseconds), digits pass once checked, and a range FROM:TO is cut
// at the colon both of whose sides are datetimes, RFC 3339 or digits.
func TestParseSpan(t *testing.T) {
	for in, want := range map[string]string{
		"2015-03-14T12:00:00Z":          "20150314120000",
		"2015-03-14T13:30:00+01:30":     "20150314120000",
		"2015-03-14T12:00:00.263Z":      "20150314120000263",
		"2015":                          "2015",
		"20141":                         "20141",
		"20150314123456789":             "20150314123456789",
		"2010:2012":                     "2010:2012",
		"2014:":                         "2014:",
		":2014":                         ":2014",
		":":                             ":",
		"2015-03-14T12:00:00Z:20160101": "20150314120000:20160101",
		"2015:2015-03-14T12:00:00Z":     "2015:20150314120000",
		"2015-03-14T00:00:00Z:2015-03-15T00:00:00Z": "20150314000000:20150315000000",
	} {
		if got, err := ParseSpan(in); err != nil || got != want {
			t.Errorf("ParseSpan(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, reason := range map[string]string{
		"":                      "empty",
		"soon":                  "neither timestamp digits nor an RFC 3339 instant",
		"2015-03-14":            "neither timestamp digits nor an RFC 3339 instant",
		"20151301":              "month 13 out of range 01-12",
		"2016:2014":             `FROM "2016" is after TO "2014"`,
		"2010:2012x":            `TO "2012x": neither timestamp digits nor an RFC 3339 instant`,
		"2015-03-14T25:00:00Z":  "RFC 3339: hour out of range",
		"2015-03-14T12:00:00Z:": "", // an open range, accepted
	} {
		got, err := ParseSpan(in)
		if reason == "" {
			if err != nil {
				t.Errorf("ParseSpan(%q) = %q, %v; want no error", in, got, err)
			}
			continue
		}
		want := fmt.Sprintf("invalid datetime %q: %s; want %s", in, reason, SpanRule)
		if err == nil || err.Error() != want || !errors.Is(err, ErrDatetime) {
			t.Errorf("ParseSpan(%q) = %q, %v;\nwant the error %s", in, got, err, want)
		}
	}
}

// TestOneDatetimeMessage: ParseTime, ParseDatetime and ParseSpan refuse a
// value with one message, the rule stated, wrapping ErrDatetime and (for
// digits) timestamp.ErrInvalid.
func TestOneDatetimeMessage(t *testing.T) {
	for _, bad := range []string{"20261301", "123", "202612011200001234", "yesterday", "2026-12-01 00:00:00"} {
		_, e1 := ParseTime(bad)
		_, e2 := ParseDatetime(bad)
		_, e3 := ParseSpan(bad)
		if e1 == nil || e2 == nil || e3 == nil {
			t.Fatalf("%q: %v, %v, %v; want three errors", bad, e1, e2, e3)
		}
		if e1.Error() != e2.Error() || e3.Error() != strings.Replace(e1.Error(), DatetimeRule, SpanRule, 1) {
			t.Errorf("%q: three messages:\n%v\n%v\n%v", bad, e1, e2, e3)
		}
		if !strings.HasPrefix(e1.Error(), fmt.Sprintf("invalid datetime %q: ", bad)) || !strings.HasSuffix(e1.Error(), "; want "+DatetimeRule) {
			t.Errorf("%q: %v", bad, e1)
		}
		digits := strings.Trim(bad, "0123456789") == ""
		for _, err := range []error{e1, e2, e3} {
			if !errors.Is(err, ErrDatetime) || errors.Is(err, timestamp.ErrInvalid) != digits {
				t.Errorf("%q: %v wraps ErrDatetime %v, timestamp.ErrInvalid %v (digits: %v)", bad, err,
					errors.Is(err, ErrDatetime), errors.Is(err, timestamp.ErrInvalid), digits)
			}
		}
	}
}
