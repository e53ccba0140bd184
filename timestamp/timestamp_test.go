package timestamp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     time.Time
		wantErr  bool
	}{
		{"year only", "2014", time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"month tens digit 1", "20141", time.Date(2014, 10, 1, 0, 0, 0, 0, time.UTC), false},
		{"month tens digit 0", "20140", time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"day tens digit 0", "2014020", time.Date(2014, 2, 1, 0, 0, 0, 0, time.UTC), false},
		{"CDX-04a 12 digits", "200101011200", time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC), false},
		{"14 digits", "20010101115959", time.Date(2001, 1, 1, 11, 59, 59, 0, time.UTC), false},
		{"CDX-04c 17 digits", "20230426095158263", time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC), false},
		{"16 digits", "2023042609515826", time.Date(2023, 4, 26, 9, 51, 58, 260e6, time.UTC), false},
		{"leap day", "20240229", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), false},
		{"CDX-04d month 18", "201018122054100", time.Time{}, true},
		{"month 00", "20100001", time.Time{}, true},
		{"month tens digit 2", "20102", time.Time{}, true},
		{"29 February 2023", "20230229", time.Time{}, true},
		{"31 April", "20230431", time.Time{}, true},
		{"day 00", "20230400", time.Time{}, true},
		{"hour 24", "2023040124", time.Time{}, true},
		{"minute 60", "202304011260", time.Time{}, true},
		{"second 60", "20230401125960", time.Time{}, true},
		{"too short", "201", time.Time{}, true},
		{"too long", "202304011259591234", time.Time{}, true},
		{"not digits", "2023-04-01", time.Time{}, true},
		{"empty", "", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"seconds", time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC), "20010101120000"},
		{"milliseconds", time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC), "20230426095158263"},
		{"other zone", time.Date(2001, 1, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600)), "20010101120000"},
		{"sub-millisecond dropped", time.Date(2001, 1, 1, 12, 0, 0, 999, time.UTC), "20010101120000"},
		{"one millisecond", time.Date(2001, 1, 1, 12, 0, 0, 1e6, time.UTC), "20010101120000001"},
		{"before 1000", time.Date(996, 12, 21, 3, 12, 31, 0, time.UTC), "09961221031231"},
		{"the zero time", time.Time{}, "00010101000000"},
		{"year 0", time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), "00000101000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.in); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
			back, err := Parse(tt.want)
			if err != nil || !back.Equal(tt.in.Truncate(time.Millisecond)) {
				t.Errorf("round trip %q = %v, %v", tt.want, back, err)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name, from, to string
		lo, hi         string
		wantErr        bool
	}{
		{"CDX-04b year", "2014", "2014", "20140101000000", "20141231235959", false},
		{"month", "201402", "201402", "20140201000000", "20140228235959", false},
		{"leap February", "202402", "202402", "20240201000000", "20240229235959", false},
		{"day and hour", "2014020112", "2014020112", "20140201120000", "20140201125959", false},
		{"odd lengths", "20140", "2014022", "20140101000000", "20140228235959", false},
		{"month tens digit 1", "20141", "20141", "20141001000000", "20141231235959", false},
		{"hour tens digit", "201402011", "201402012", "20140201100000", "20140201235959", false},
		{"milliseconds", "20230426095158263", "20230426095158", "20230426095158263", "20230426095158", false},
		{"open ends", "", "", "", "", false},
		{"from after to", "2015", "2014", "", "", true},
		{"bad month", "201413", "", "", "", true},
		{"bad day in upper bound", "", "2014023", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, err := Bounds(tt.from, tt.to)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Bounds(%q, %q) error = %v, want error %v", tt.from, tt.to, err, tt.wantErr)
			}
			if diff := cmp.Diff([2]string{tt.lo, tt.hi}, [2]string{lo, hi}); diff != "" {
				t.Errorf("bounds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInRange(t *testing.T) {
	lo, hi, err := Bounds("2014", "2014")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ts   string
		want bool
	}{
		{"20131231235959", false},
		{"20140101000000", true},
		{"2014", true},
		{"201406", true},
		{"20141231235959", true},
		{"20141231235959999", true}, // milliseconds within the last second of to=2014
		{"20150101000000", false},
		{"2015", false},
		{"20141301000000", false}, // invalid: never in range
	}
	for _, tt := range tests {
		if got := InRange([]byte(tt.ts), lo, hi); got != tt.want {
			t.Errorf("InRange(%q, %q, %q) = %v, want %v", tt.ts, lo, hi, got, tt.want)
		}
	}
	// CDX-04c: a 17-digit value sorts between the 14-digit seconds around it.
	if !InRange([]byte("20230426095158263"), "20230426095158", "20230426095158") {
		t.Error("20230426095158263 should be within the second 20230426095158")
	}
	if InRange([]byte("20230426095158263"), "20230426095159", "") {
		t.Error("20230426095158263 should be before 20230426095159")
	}
	if !InRange([]byte("20010101120000"), "", "") {
		t.Error("open bounds should hold everything valid")
	}
}

// CDX-04a, CDX-04c: byte-wise order of timestamps is time order.
func TestOrder(t *testing.T) {
	in := []string{"20010101115959", "200101011200", "20230426095158", "20230426095158263", "20230426095159"}
	for i := 1; i < len(in); i++ {
		a, _ := Parse(in[i-1])
		b, _ := Parse(in[i])
		if !(in[i-1] < in[i]) || !a.Before(b) {
			t.Errorf("%s should sort and fall before %s", in[i-1], in[i])
		}
	}
}

func TestFormatClampsYears(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"year 10000", time.Date(10000, 6, 1, 0, 0, 0, 0, time.UTC), "99991231235959"},
		{"year -1", time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC), "00000101000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.in); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEarliestLatest(t *testing.T) {
	tests := []struct {
		name, in         string
		earliest, latest string
	}{
		{"year", "2014", "20140101000000000", "20141231235959999"},
		{"February of a leap year", "202402", "20240201000000000", "20240229235959999"},
		{"month tens digit 0", "20140", "20140101000000000", "20140930235959999"},
		{"day tens digit 3 in April", "2023043", "20230430000000000", "20230430235959999"},
		{"hour tens digit 2", "202304012", "20230401200000000", "20230401235959999"},
		{"seconds", "20010101120000", "20010101120000000", "20010101120000999"},
		{"milliseconds", "20230426095158263", "20230426095158263", "20230426095158263"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Earliest(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Latest([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]string{tt.earliest, tt.latest}, [2]string{e.String(), l.String()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if e.Year() != e.Time().Year() || l.Time().Before(e.Time()) {
				t.Errorf("Year %d, Time %v..%v", e.Year(), e.Time(), l.Time())
			}
		})
	}
	for _, bad := range []string{"2023049", "20230229", "201", "20141x"} {
		if _, err := Latest(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Latest(%q) error = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := Parse("20141301")
	if got, want := err.Error(), `invalid timestamp: "20141301": month 13 out of range 01-12`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	_, err = Parse(strings.Repeat("9", 50))
	if got, want := err.Error(), `invalid timestamp: "`+strings.Repeat("9", 40)+`..." has 50 characters, want 4 to 17 digits`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

func TestNoAllocations(t *testing.T) {
	ts := []byte("20230426095158263")
	lo, hi, err := Bounds("2023", "2023")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 17)
	n := testing.AllocsPerRun(100, func() {
		if _, err := Earliest(ts); err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(ts); err != nil {
			t.Fatal(err)
		}
		if !InRange(ts, lo, hi) {
			t.Fatal("not in range")
		}
		buf = Append(buf[:0], time.Unix(1e9, 0))
	})
	if n != 0 {
		t.Errorf("%v allocations per run, want 0", n)
	}
}

// FuzzParse checks that Parse never panics, that a parsed timestamp is a
// prefix of its formatted form when it has 14 digits or fewer, and that the
// formatted form parses back to the same instant.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2005", "20051", "200503", "20050301", "2005030112", "200503011200", "20050301120000",
		"20230426095158263", "2023042609515826", "20051301", "20000229", "20010229", "99991231235959", "0001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: error %v does not wrap ErrInvalid", s, err)
			}
			return
		}
		e, _ := Earliest(s)
		l, err := Latest(s)
		if err != nil || e.compare(&l) > 0 {
			t.Fatalf("%q: latest %v %v before earliest %v", s, l, err, e)
		}
		out := Format(v)
		if len(s) <= 14 && !strings.HasPrefix(out, s) {
			t.Fatalf("%q formats as %q", s, out)
		}
		back, err := Parse(out)
		if err != nil || !back.Equal(v) {
			t.Fatalf("%q: %v, back %v %v", s, v, back, err)
		}
	})
}

// FuzzBounds checks Parse, Bounds and InRange against
// each other: a valid timestamp lies within its own bounds, its earliest
// instant formats back to a prefix-compatible value, and nothing panics.
func FuzzBounds(f *testing.F) {
	for _, s := range []string{"2014", "20141", "200101011200", "20230426095158263", "201018122054100", "20240229", "2023022", "9999123123595999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return // an empty bound is open, not an error
		}
		tm, err := Parse(s)
		lo, hi, berr := Bounds(s, s)
		if (err == nil) != (berr == nil) {
			t.Fatalf("Parse(%q) error %v but Bounds error %v", s, err, berr)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalid) || InRange([]byte(s), "", "") {
				t.Fatalf("invalid %q: error %v, InRange %v", s, err, InRange([]byte(s), "", ""))
			}
			return
		}
		if !InRange([]byte(s), lo, hi) || lo > hi {
			t.Fatalf("%q not within its own bounds %q..%q", s, lo, hi)
		}
		f := Format(tm)
		back, err := Parse(f)
		if err != nil || !back.Equal(tm) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, tm, f, back, err)
		}
		if hiT, err := Parse(hi); err != nil || hiT.Before(tm) {
			t.Fatalf("upper bound %q (%v) before %v: %v", hi, hiT, tm, err)
		}
	})
}
