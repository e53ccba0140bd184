package ukvs

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDatetimeValue(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		want         DatetimeValue
		lower, upper string
	}{
		{"year", "2014", DatetimeValue{From: "2014", To: "2014"}, "20140101000000", "20141231235959"},
		{"month", "201603", DatetimeValue{From: "201603", To: "201603"}, "20160301000000", "20160331235959"},
		{"leap february", "201602", DatetimeValue{From: "201602", To: "201602"}, "20160201000000", "20160229235959"},
		{"day", "20160315", DatetimeValue{From: "20160315", To: "20160315"}, "20160315000000", "20160315235959"},
		{"hour", "2016031512", DatetimeValue{From: "2016031512", To: "2016031512"}, "20160315120000", "20160315125959"},
		{"minute", "201603151234", DatetimeValue{From: "201603151234", To: "201603151234"}, "20160315123400", "20160315123459"},
		{"second", "20160315123456", DatetimeValue{From: "20160315123456", To: "20160315123456"}, "20160315123456", "20160315123456"},
		{"range of years", "2010:2012", DatetimeValue{From: "2010", To: "2012", Range: true}, "20100101000000", "20121231235959"},
		{"open start", ":2009", DatetimeValue{To: "2009", Range: true}, "", "20091231235959"},
		{"open end", "201603:", DatetimeValue{From: "201603", Range: true}, "20160301000000", ""},
		{"all time", ":", DatetimeValue{Range: true}, "", ""},
		{"end of december", "201212", DatetimeValue{From: "201212", To: "201212"}, "20121201000000", "20121231235959"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDatetimeValue(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDatetimeValue(%q) (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
			if got.Lower() != tt.lower || got.Upper() != tt.upper {
				t.Errorf("bounds %q..%q, want %q..%q", got.Lower(), got.Upper(), tt.lower, tt.upper)
			}
		})
	}
}

func TestParseDatetimeValueErrors(t *testing.T) {
	for _, in := range []string{"", "201", "20161", "2016x3", "201613", "20160230", "2016031524", "201603151260", "2012:2010", "2010:20", "a:", "2010::2012", "2010-2012"} {
		t.Run(in, func(t *testing.T) {
			if _, err := ParseDatetimeValue(in); !errors.Is(err, ErrDatetimeValue) {
				t.Errorf("ParseDatetimeValue(%q) error = %v, want ErrDatetimeValue", in, err)
			}
		})
	}
}

func TestDatetimeValueContains(t *testing.T) {
	p, err := ParseDatetimeValue("2010:2012")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ts   string
		want bool
	}{
		{"20091231235959", false}, {"20100101000000", true}, {"20121231235959", true},
		{"20130101000000", false}, {"2011", true}, {"20121231235959123", true}, {"2013", false},
	}
	for _, tt := range tests {
		if got := p.Contains(tt.ts); got != tt.want {
			t.Errorf("%v.Contains(%q) = %v, want %v", p, tt.ts, got, tt.want)
		}
	}
	all, _ := ParseDatetimeValue(":")
	if !all.Contains("19960101000000") {
		t.Error(`":" does not contain 1996`)
	}
}
