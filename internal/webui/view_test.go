package webui

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/memento"
)

func TestNavigate(t *testing.T) {
	m := func(stamp, archive string) memento.Memento {
		return memento.Memento{URIM: "http://" + archive + "/" + stamp, Datetime: ts(t, stamp), Archive: archive}
	}
	// Sorted by datetime then rank, as the aggregator returns them.
	list := []memento.Memento{
		m("20000101000000", "a"),
		m("20100101000000", "a"), m("20100101000000", "b"),
		m("20200101000000", "b"),
		m("20300101000000", "a"), m("20300101000000", "b"),
	}
	// label gives each navigation entry as "stamp/archive" (+N same second).
	label := func(p *NavMemento) string {
		if p == nil {
			return "-"
		}
		s := p.Datetime.Format("2006") + "/" + p.Archive
		if p.Same > 0 {
			s += fmt.Sprintf("+%d", p.Same)
		}
		return s
	}
	type want struct{ First, Prev, Closest, Next, Last string }
	tests := []struct {
		name string
		ms   []memento.Memento
		at   string
		want want
	}{
		{"empty", nil, "20100101000000", want{"-", "-", "-", "-", "-"}},
		{"single", list[:1], "19900101000000", want{"2000/a", "-", "2000/a", "-", "2000/a"}},
		{"before the first", list, "19900101000000", want{"2000/a", "-", "2000/a", "2010/a+1", "2030/a+1"}},
		{"after the last", list, "20400101000000", want{"2000/a", "2020/b", "2030/a+1", "-", "2030/a+1"}},
		{"exact, same second group starts at rank 1", list, "20100101000000", want{"2000/a", "2000/a", "2010/a+1", "2020/b", "2030/a+1"}},
		{"nearer the earlier", list, "20120101000000", want{"2000/a", "2000/a", "2010/a+1", "2020/b", "2030/a+1"}},
		{"nearer the later", list, "20180101000000", want{"2000/a", "2010/a+1", "2020/b", "2030/a+1", "2030/a+1"}},
		// 2015-01-01 00:00:00 is not the midpoint of 2010 and 2020 (leap
		// days); build an exact tie instead.
		{"tie goes to the later", []memento.Memento{m("20100101000000", "a"), m("20100101000010", "b")}, "20100101000005",
			want{"2010/a", "2010/a", "2010/b", "-", "2010/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := navigate(tc.ms, ts(t, tc.at))
			got := want{label(n.First), label(n.Prev), label(n.Closest), label(n.Next), label(n.Last)}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("navigate (-want +got):\n%s", d)
			}
		})
	}
}

func TestFormDate(t *testing.T) {
	now := time.Date(2024, 6, 6, 6, 6, 6, 5e8, time.FixedZone("X", 3600))
	tests := []struct {
		in      string
		want    string // 14 digits, or "error"
		comment string
	}{
		{"", "20240606050606", "now, in UTC, whole seconds"},
		{"  ", "20240606050606", "blank is empty"},
		{"2005", "20050101000000", "a year"},
		{"2005-03", "20050301000000", "a month"},
		{"2005-03-01", "20050301000000", "a browser date field"},
		{"2005-03-01T12:30", "20050301123000", "a datetime-local field"},
		{"2005-03-01 12:30:45", "20050301123045", "with a space"},
		{"2005-03-01T12:30:45Z", "20050301123045", "with Z"},
		{"20050301123045", "20050301123045", "a timestamp"},
		{"Tue, 01 Mar 2005 12:30:45 GMT", "20050301123045", "an HTTP date"},
		{"2005-13-01", "error", "month 13"},
		{"2005-02-30", "error", "30 February"},
		{"200", "error", "three digits"},
		{"yesterday", "error", "a word"},
		{"2005/03/01", "error", "slashes"},
	}
	for _, tc := range tests {
		t.Run(tc.comment, func(t *testing.T) {
			got, err := FormDate(tc.in, now)
			if tc.want == "error" {
				if err == nil {
					t.Fatalf("FormDate(%q) = %v, want an error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("FormDate(%q): %v", tc.in, err)
			}
			if s := got.Format("20060102150405"); s != tc.want || got.Location() != time.UTC {
				t.Errorf("FormDate(%q) = %s in %v, want %s UTC", tc.in, s, got.Location(), tc.want)
			}
		})
	}
}

func ExampleFormDate() {
	now := time.Date(2024, 6, 6, 6, 6, 6, 0, time.UTC)
	for _, s := range []string{"2005-03-01", "2005-03-01T12:30", "", "2005-13-01"} {
		t, err := FormDate(s, now)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(t.Format("20060102150405"))
	}
	// Output:
	// 20050301000000
	// 20050301123000
	// 20240606060606
	// The date "2005-13-01" is not valid: write YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or YYYYMMDDhhmmss.
}
