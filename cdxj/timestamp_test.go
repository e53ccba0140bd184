package cdxj

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseTimestamp(t *testing.T) {
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
			got, err := ParseTimestamp([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseTimestamp(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrTimestamp) {
				t.Errorf("error %v does not wrap ErrTimestamp", err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("ParseTimestamp(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatTimestamp(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"seconds", time.Date(2001, 1, 1, 12, 0, 0, 0, time.UTC), "20010101120000"},
		{"milliseconds", time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC), "20230426095158263"},
		{"other zone", time.Date(2001, 1, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600)), "20010101120000"},
		{"sub-millisecond dropped", time.Date(2001, 1, 1, 12, 0, 0, 999, time.UTC), "20010101120000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatTimestamp(tt.in); got != tt.want {
				t.Errorf("FormatTimestamp = %q, want %q", got, tt.want)
			}
			back, err := ParseTimestamp([]byte(tt.want))
			if err != nil || !back.Equal(tt.in.Truncate(time.Millisecond)) {
				t.Errorf("round trip %q = %v, %v", tt.want, back, err)
			}
		})
	}
}

func TestTimestampBounds(t *testing.T) {
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
			lo, hi, err := TimestampBounds(tt.from, tt.to)
			if (err != nil) != tt.wantErr {
				t.Fatalf("TimestampBounds(%q, %q) error = %v, want error %v", tt.from, tt.to, err, tt.wantErr)
			}
			if diff := cmp.Diff([2]string{tt.lo, tt.hi}, [2]string{lo, hi}); diff != "" {
				t.Errorf("bounds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInRange(t *testing.T) {
	lo, hi, err := TimestampBounds("2014", "2014")
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
func TestTimestampOrder(t *testing.T) {
	in := []string{"20010101115959", "200101011200", "20230426095158", "20230426095158263", "20230426095159"}
	for i := 1; i < len(in); i++ {
		a, _ := ParseTimestamp([]byte(in[i-1]))
		b, _ := ParseTimestamp([]byte(in[i]))
		if !(in[i-1] < in[i]) || !a.Before(b) {
			t.Errorf("%s should sort and fall before %s", in[i-1], in[i])
		}
	}
}
