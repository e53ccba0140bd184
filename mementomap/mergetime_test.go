package mementomap

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/ukvs"
)

const dtFields = `!fields {"keys": ["surt", "datetime"], "values": ["frequency"]}` + "\n"

// TestMergeDatetimeMaps merges maps keyed by URI and datetime: by key and
// datetime, the lines of one key and datetime summed, the others kept.
func TestMergeDatetimeMaps(t *testing.T) {
	a := dtFields + "com,a)/ 2015 3/1\ncom,a)/ 2016 1/1\ncom,b)/ 2015 2/1\ncom,d)/ 2015 0\n"
	b := dtFields + "com,a)/ 2015 2/1\ncom,a)/ 2017 4/1\ncom,c)/ 2015 1/1\ncom,d)/ 2016 1/1\n"
	var out bytes.Buffer
	st, err := Merge(&out, strings.NewReader(a), strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	want := dtFields + "com,a)/ 2015 5/2-\ncom,a)/ 2016 1/1\ncom,a)/ 2017 4/1\ncom,b)/ 2015 2/1\ncom,c)/ 2015 1/1\ncom,d)/ 2016 1/1\n"
	if out.String() != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", out.String(), want)
	}
	if st.Lines != 6 || st.Both != 1 || st.Exclusions != 1 {
		t.Errorf("stats %+v, want 6 lines, 1 in both, 1 exclusion dropped", st)
	}
	if _, err := ukvs.Check(bytes.NewReader(out.Bytes())); err != nil {
		t.Errorf("ukvs.Check of the merged map: %v", err)
	}
	m := FromBytes(out.Bytes())
	for _, c := range []struct{ at, value string }{{"2015", "5/2-"}, {"2016", "1/1"}, {"2017", "4/1"}} {
		res, err := m.LookupAt("http://a.com/", c.at)
		if err != nil || res.Value != c.value || res.Time != c.at {
			t.Errorf("LookupAt(a.com, %s) = %+v, %v; want %s at %s", c.at, res, err, c.value, c.at)
		}
	}
	// A map keyed by URI alone does not merge with one keyed by datetime too.
	_, err = Merge(&bytes.Buffer{}, strings.NewReader(a), strings.NewReader("com,a)/ 1\n"))
	if !errors.Is(err, ErrDifferentLayouts) {
		t.Errorf("merge of a datetime map and a plain one: %v; want ErrDifferentLayouts", err)
	}
	// Order is checked by key and datetime.
	_, err = Merge(&bytes.Buffer{}, strings.NewReader(dtFields+"com,a)/ 2016 1\ncom,a)/ 2015 1\n"))
	var le *LineError
	if !errors.As(err, &le) || !errors.Is(err, ErrOutOfOrder) || le.Line != 3 {
		t.Errorf("merge of a map with datetimes out of order: %v; want ErrOutOfOrder at line 3", err)
	}
}

const dtIndex = `com,example)/ 20100101000000 {"url": "http://example.com/", "status": "200"}
com,example)/ 20110101000000 {"url": "http://example.com/", "status": "200"}
com,example)/?q=1 20100601000000 {"url": "http://example.com/?q=1", "status": "200"}
com,example)/a 20100101000000 {"url": "http://example.com/a", "status": "200"}
`

// TestBuildDatetime builds maps with a datetime key column: one line per
// HxPx key and capture datetime (cut to Datetime digits), looked up by URI
// and datetime.
func TestBuildDatetime(t *testing.T) {
	build := func(digits int) string {
		t.Helper()
		var out bytes.Buffer
		o := BuildOptions{Datetime: digits, Now: fixedNow}
		if _, err := Build(context.Background(), &out, []cdxj.Searcher{cdxj.NewStream("dt.cdxj", strings.NewReader(dtIndex), nil)}, &o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	year := build(4)
	if !strings.Contains(year, `!fields {"keys": ["surt", "datetime"], "values": ["frequency"]}`+"\n") {
		t.Errorf("no datetime !fields:\n%s", year)
	}
	if want := "com,example)/ 2010 2/2\ncom,example)/ 2011 1/1\ncom,example)/a 2010 1/1\n"; !strings.HasSuffix(year, want) {
		t.Errorf("year map:\n%s\nwant its lines:\n%s", year, want)
	}
	second := build(14)
	if want := "com,example)/ 20100101000000 1/1\ncom,example)/ 20100601000000 1/1\ncom,example)/ 20110101000000 1/1\ncom,example)/a 20100101000000 1/1\n"; !strings.HasSuffix(second, want) {
		t.Errorf("second map:\n%s\nwant its lines:\n%s", second, want)
	}
	// A year line holds all of 2011; a second's line part of it, so its
	// count is an upper bound of the year's.
	for mp, want2011 := range map[string]string{year: "1/1", second: "1-/1-"} {
		if _, err := ukvs.Check(strings.NewReader(mp)); err != nil {
			t.Errorf("ukvs.Check: %v\n%s", err, mp)
		}
		m := FromBytes([]byte(mp))
		if m.TimeKey() != TimeKeyDatetime {
			t.Errorf("TimeKey %q", m.TimeKey())
		}
		if res, err := m.LookupAt("http://example.com/", "2011"); err != nil || res.Value != want2011 || !strings.HasPrefix(res.Time, "2011") {
			t.Errorf("LookupAt 2011: %+v, %v; want %s at 2011", res, err, want2011)
		}
		if res, err := m.LookupAt("http://example.com/a", "2010"); err != nil || !res.Present() || res.Key != "com,example)/a" {
			t.Errorf("LookupAt /a 2010: %+v, %v; want present", res, err)
		}
		if res, err := m.LookupAt("http://example.com/a", "2011"); err != nil || res.Present() {
			t.Errorf("LookupAt /a 2011: %+v, %v; want absent (captured in 2010 only)", res, err)
		}
		if res, err := m.Lookup("http://example.com/?q=1"); err != nil || res.Frequency.URIM.N != 3 {
			t.Errorf("Lookup without a datetime: %+v, %v; want the 3 captures of the key", res, err)
		}
	}
	var out bytes.Buffer
	o := BuildOptions{Datetime: 5}
	if _, err := Build(context.Background(), &out, []cdxj.Searcher{cdxj.NewStream("dt.cdxj", strings.NewReader(dtIndex), nil)}, &o); !errors.Is(err, ErrDatetimeDigits) {
		t.Errorf("Datetime 5: %v; want ErrDatetimeDigits", err)
	}
}

const obsFields = `!fields {"keys": ["surt", "observed"], "values": ["frequency"]}` + "\n"

// TestMergeObservedMaps merges observed maps (keyed by URI-R and the time
// of the observation) by the rule of datetime maps: by key and observation
// time, one key's observations at one time summed, its others kept, so
// that the latest observation of the merged maps decides a lookup
// (LookupObserved); order is checked by key and time, and an observed map
// does not merge with a datetime map.
func TestMergeObservedMaps(t *testing.T) {
	a := obsFields + "com,a)/ 20240101000000 2/1\ncom,b)/ 20240101000000 0\ncom,c)/ 20240101000000 1/1\n"
	b := obsFields + "com,a)/ 20240101000000 1/1\ncom,b)/ 20240105000000 3/1\ncom,c)/ 20240105000000 0\n"
	var out bytes.Buffer
	st, err := Merge(&out, strings.NewReader(a), strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ukvs.Check(bytes.NewReader(out.Bytes())); err != nil {
		t.Errorf("ukvs.Check of the merged map: %v\n%s", err, out.String())
	}
	want := obsFields + "com,a)/ 20240101000000 3/2-\ncom,b)/ 20240101000000 0\ncom,b)/ 20240105000000 3/1\n" +
		"com,c)/ 20240101000000 1/1\ncom,c)/ 20240105000000 0\n"
	if out.String() != want || st.Both != 1 || st.Exclusions != 0 {
		t.Errorf("merged (%+v):\n%s\nwant com,a)/ summed at its one time, every other observation kept, negatives too:\n%s", st, out.String(), want)
	}
	m := FromBytes(out.Bytes())
	if m.TimeKey() != TimeKeyObserved {
		t.Fatalf("merged map's time key %q", m.TimeKey())
	}
	now := time.Date(2024, 1, 6, 0, 0, 0, 0, time.UTC)
	// The latest observation decides: b's positive after its negative,
	// c's fresh negative after its positive.
	for key, present := range map[string]bool{"com,a)/": true, "com,b)/": true, "com,c)/": false} {
		res, err := m.LookupObserved(key, now, 0)
		if err != nil || res.Present() != present {
			t.Errorf("LookupObserved(%s) = %+v, %v; want present %v", key, res, err, present)
		}
	}
	// Observation times out of order, and a datetime map beside an observed one.
	_, err = Merge(&bytes.Buffer{}, strings.NewReader(obsFields+"com,a)/ 20240105000000 1\ncom,a)/ 20240101000000 1\n"))
	if !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("merge of an observed map with times out of order: %v; want ErrOutOfOrder", err)
	}
	_, err = Merge(&bytes.Buffer{}, strings.NewReader(a), strings.NewReader(dtFields+"com,a)/ 2015 1\n"))
	if !errors.Is(err, ErrDifferentLayouts) {
		t.Errorf("merge of an observed map and a datetime map: %v; want ErrDifferentLayouts", err)
	}
}
