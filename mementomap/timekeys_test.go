package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/timestamp"
	"github.com/mementokit/mementokit/ukvs"
)

// figure2Map is the MementoMap of the paper's Figure 2.
const figure2Map = `!context ["http://oduwsdl.github.io/contexts/ukvs"]
!id {uri: "http://archive.example.org/"}
!fields {keys: ["surt"], values: ["frequency"]}
!meta {type: "MementoMap", name: "A Test Web Archive", year: 1996}
* 54321/20000
com,* 10000+
org,arxiv)/ 100
org,arxiv)/* 2500~/900
org,arxiv)/pdf/* 0
uk,co,bbc)/images/* 300+/20-
`

func TestTotalsWildcardOnce(t *testing.T) {
	tests := []struct {
		name, m string
		want    string
		covered int64
	}{
		// "*" covers every other line: the total is its own.
		{"Figure 2", figure2Map, "54321/20000", 5},
		// Hand-made: 3+2+10+7+1 = 23 URI-Ms, 1+1+4+3+1 = 10 URI-Rs from
		// the uncovered keys; "b" and "b/%41" (before "b/*": '%' < '*'),
		// "b/c" (after it) and "www)/x" (before "www,*": ')' < ',') are
		// covered, and so is the exclusion "b/d".
		{"before and after their wildcard", `com,example)/ 3/1
com,example)/a 2/1
com,example)/b 5/2
com,example)/b/%41 1/1
com,example)/b/* 10/4
com,example)/b/c 1/1
com,example)/b/d 0
com,example,www)/x 1/1
com,example,www,* 7/3
com,other)/ 1/1
`, "23/10", 5},
		// The reference tool's root form is covered by "X/*" too.
		{"root forms", "com,a) 1/1\ncom,a)/* 4/2\ncom,b)/ 2/1\n", "6/3", 1},
		// No wildcard: every line counts.
		{"baseline", "com,a)/ 1/1\ncom,a)/b 2/1\n", "3/2", 0},
		// A TLD wildcard covers its hosts' lines, which sort before it.
		{"tld wildcard", "com)/ 1/1\ncom,* 5/3\ncom,a)/ 1/1\nnet,b)/ 2/1\n", "7/4", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := FromBytes([]byte(tt.m))
			got, err := m.Totals()
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("Totals = %s, want %s", got, tt.want)
			}
			st, err := m.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if st.Total.String() != tt.want || st.Covered != tt.covered {
				t.Errorf("Stats: total %s covered %d, want %s and %d", st.Total, st.Covered, tt.want, tt.covered)
			}
		})
	}
}

// TestCoveredBruteForce checks the one-pass coverage rule against the
// definition on random maps: a key is covered when one of its lookup keys
// other than itself (a wildcard above it) is a line of the map.
func TestCoveredBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hosts := []string{"com", "com,a", "com,a,b", "com,a-b", "com,ab", "net,x", "net,x,y"}
	segs := []string{"", "%41", "!x", "a", "a-b", "a.b", "b", "c"}
	for iter := range 300 {
		set := map[string]bool{}
		for range 1 + r.IntN(25) {
			h := hosts[r.IntN(len(hosts))]
			switch r.IntN(6) {
			case 0:
				set[h+",*"] = true
			case 1:
				if r.IntN(8) == 0 {
					set["*"] = true
				}
			default:
				k := h + ")"
				for range r.IntN(4) {
					k += "/" + segs[r.IntN(len(segs))]
				}
				if k == h+")" && r.IntN(2) == 0 {
					k += "/"
				}
				if r.IntN(4) == 0 {
					k += "/*"
				}
				set[k] = true
			}
		}
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s 1/1\n", k)
		}
		m := FromBytes([]byte(b.String()))
		var got []string
		if err := m.eachKey(func(g keyGroup) error {
			if g.covered {
				got = append(got, string(g.key))
			}
			return nil
		}, nil); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, k := range keys {
			base := k
			if bl, ok := wildcardBlock([]byte(k)); ok {
				if len(bl) == 0 {
					continue
				}
				base = string(bl[:len(bl)-1])
			}
			for _, c := range AppendLookupKeys(nil, base) {
				if c != k && strings.HasSuffix(c, "*") && set[c] {
					want = append(want, k)
					break
				}
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("map %d:\n%s\ncovered keys (-want +got):\n%s", iter, b.String(), d)
		}
	}
}

const datetimeMap = `!fields {"keys": ["surt", "datetime"], "values": ["frequency"]}
com,apple)/ 20160213052637 1
com,apple)/* 2010:2012 100/40
com,apple)/* 2016 120/50
com,apple)/* : 300/90
com,cnn)/ 2014 20~/10
com,cnn)/ 2015 60/30
org,*  :2009 0
`

func TestDatetimeMap(t *testing.T) {
	m := FromBytes([]byte(datetimeMap))
	if m.TimeKey() != TimeKeyDatetime {
		t.Fatalf("TimeKey = %q", m.TimeKey())
	}
	tests := []struct {
		name, in, at string
		want         Match
	}{
		// Without a datetime, the first key present decides with its
		// all-time line, or the sum of its lines: 2014 and 2015 do not
		// overlap, so 20~+60 = 80~ URI-Ms; URI-Rs 10+30 = 40 at most.
		{"any time, all-time line", "http://apple.com/x", "", Match{Key: "com,apple)/*", Value: "300/90", Distance: 2, Time: ":"}},
		{"any time, exact key", "http://apple.com/", "", Match{Key: "com,apple)/", Value: "1", Distance: 0, Time: "20160213052637"}},
		{"any time, sum", "http://cnn.com/", "", Match{Key: "com,cnn)/", Value: "80~/40-", Distance: 0}},
		// At a datetime, the narrowest line whose period holds it decides.
		{"at 2011", "http://apple.com/x", "2011", Match{Key: "com,apple)/*", Value: "100/40", Distance: 2, Time: "2010:2012"}},
		{"at 2016-03", "http://apple.com/x", "201603", Match{Key: "com,apple)/*", Value: "120/50", Distance: 2, Time: "2016"}},
		{"at 2014, all-time line", "http://apple.com/x", "2014", Match{Key: "com,apple)/*", Value: "300/90", Distance: 2, Time: ":"}},
		// The root key's one line is about 2016-02-13 only: in 2011 the
		// wildcard above it answers.
		{"exact key about another time", "http://apple.com/", "2011", Match{Key: "com,apple)/*", Value: "100/40", Distance: 2, Time: "2010:2012"}},
		{"exact second", "http://apple.com/", "20160213052637", Match{Key: "com,apple)/", Value: "1", Distance: 0, Time: "20160213052637"}},
		{"cnn 2015", "http://cnn.com/", "20150601", Match{Key: "com,cnn)/", Value: "60/30", Distance: 0, Time: "2015"}},
		// No line of cnn holds 2019, and nothing above it does.
		{"no period holds it", "http://cnn.com/", "2019", Match{Distance: -1}},
		// A range must lie inside a line's period.
		{"range inside", "http://apple.com/x", "2010:2011", Match{Key: "com,apple)/*", Value: "100/40", Distance: 2, Time: "2010:2012"}},
		{"range across", "http://apple.com/x", "2012:2016", Match{Key: "com,apple)/*", Value: "300/90", Distance: 2, Time: ":"}},
		{"exclusion up to 2009", "http://arxiv.org/a", "2005", Match{Key: "org,*", Value: "0", Distance: 4, Time: ":2009"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Match
			var err error
			if tt.at == "" {
				got, err = m.Lookup(tt.in)
			} else {
				got, err = m.LookupAt(tt.in, tt.at)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Key == "" && got.Distance == 0 {
				t.Fatalf("no key")
			}
			got.Frequency = ukvs.Frequency{}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{"2016-03", "", "201", "201613", "2016:2015", "20160230", "201603x", "20161:2016093", "123456789012345678"} {
		if _, err := m.LookupAt("http://apple.com/", bad); !errors.Is(err, ErrDatetime) || !errors.Is(err, timestamp.ErrInvalid) {
			t.Errorf("LookupAt(%q): %v, want an error wrapping ErrDatetime and timestamp.ErrInvalid", bad, err)
		}
	}
	if v, ok := m.Get("com,cnn)/"); !ok || v != "20~/10" {
		t.Errorf("Get = %q, %v; want the first line's frequency", v, ok)
	}
	// Stats reads the frequency column, not the datetime: 7 lines of 4
	// keys; the apple root is covered by "com,apple)/*", so the total is
	// 300/90 + 80~/40- + 0 (org,*, no URI-R) = 380~ URI-Ms;
	// URI-Rs 90 + 40- + 0 = 130-.
	st, err := m.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 7 || st.Keys != 4 || st.TimeKey != TimeKeyDatetime || st.Covered != 1 || st.Exclusions != 1 || st.Total.String() != "380~/130-" {
		t.Errorf("Stats = %+v", st)
	}
	var out bytes.Buffer
	if _, err := m.LookupAll(&out, strings.NewReader("http://apple.com/x 2011\nhttp://cnn.com/\nhttp://cnn.com/ 2019\n")); err != nil {
		t.Fatal(err)
	}
	want := "http://apple.com/x 2011\tcom,apple)/*\t2010:2012\t100/40\nhttp://cnn.com/\tcom,cnn)/\t-\t80~/40-\nhttp://cnn.com/ 2019\t-\t-\t-\n"
	if out.String() != want {
		t.Errorf("LookupAll:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestLookupObserved(t *testing.T) {
	const om = `!fields {"keys": ["surt", "observed"], "values": ["frequency"]}
!meta {"type": "MementoMap", "negatives_max_age": "48h"}
* - /
com,example)/a 20240101000000 3/1
com,example)/b 20231201000000 2/1
com,example)/b 20240101000000 0
com,example)/c?x=1 20240101000000 0
com,example)/d 20240101000000 0
com,example)/d 20240105000000 1/1
`
	m := FromBytes([]byte(om))
	if m.TimeKey() != TimeKeyObserved || m.ObservedMaxAge() != 48*time.Hour {
		t.Fatalf("TimeKey %q, max age %v", m.TimeKey(), m.ObservedMaxAge())
	}
	at := func(s string) time.Time { t, _ := timestamp.Parse(s); return t }
	tests := []struct {
		name, key   string
		now         string
		present     bool
		stale       bool
		time, value string
	}{
		{"positive", "com,example)/a", "20250101000000", true, false, "20240101000000", "3/1"},
		// The latest observation of b is a negative: trusted for 48 h.
		{"fresh negative", "com,example)/b", "20240102000000", false, false, "20240101000000", "0"},
		{"negative at its age", "com,example)/b", "20240103000000", false, false, "20240101000000", "0"},
		{"stale negative", "com,example)/b", "20240103000001", true, true, "20240101000000", "/"},
		// A negative is about one URI-R: the same path with another
		// query, or without it, was never observed.
		{"query negative", "com,example)/c?x=1", "20240101120000", false, false, "20240101000000", "0"},
		{"other query", "com,example)/c?x=2", "20240101120000", true, false, "", "/"},
		{"no query", "com,example)/c", "20240101120000", true, false, "", "/"},
		{"later positive wins", "com,example)/d", "20240105000001", true, false, "20240105000000", "1/1"},
		{"never observed", "org,example)/", "20240101000000", true, false, "", "/"},
		// An observation "in the future" (clocks apart) is not trusted.
		{"negative after now", "com,example)/b", "20231231000000", true, true, "20240101000000", "/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.LookupObserved(tt.key, at(tt.now), 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.Present() != tt.present || got.Stale != tt.stale || got.Time != tt.time || got.Value != tt.value {
				t.Errorf("got %+v; want present %v stale %v time %q value %q", got, tt.present, tt.stale, tt.time, tt.value)
			}
		})
	}
	// A shorter max age given by the caller wins.
	if got, _ := m.LookupObserved("com,example)/b", at("20240101120000"), time.Hour); !got.Present() {
		t.Error("a negative 12 h old was trusted with a 1 h max age")
	}
}

func TestCompactRefusesTimeKeys(t *testing.T) {
	var out bytes.Buffer
	_, err := Compact(&out, strings.NewReader(datetimeMap), nil)
	if !errors.Is(err, ErrLayout) {
		t.Errorf("Compact of a datetime map: %v, want ErrLayout", err)
	}
	if _, err := Compact(&out, strings.NewReader(figure2Map), nil); err != nil {
		t.Errorf("Compact of Figure 2 (a !fields of the default layout): %v", err)
	}
}

// TestLookupAtTimestampRule: the datetime of a lookup follows package
// timestamp's rule (4 to 17 digits, each standing for the period it names),
// not the even lengths of the map's own datetime column.
func TestLookupAtTimestampRule(t *testing.T) {
	m := FromBytes([]byte(datetimeMap))
	tests := []struct {
		name, in, at string
		want         Match
	}{
		// 17 digits: a CDX timestamp with milliseconds, inside the second
		// of the apple root's line.
		{"milliseconds", "http://apple.com/", "20160213052637263", Match{Key: "com,apple)/", Value: "1", Distance: 0, Time: "20160213052637"}},
		// 20160213052637 and the next millisecond's second are different.
		{"next second", "http://apple.com/", "20160213052638000", Match{Key: "com,apple)/*", Value: "120/50", Distance: 2, Time: "2016"}},
		// 5 digits: 20151 is October to December 2015, inside cnn's 2015.
		{"odd length", "http://cnn.com/", "20151", Match{Key: "com,cnn)/", Value: "60/30", Distance: 0, Time: "2015"}},
		// 20141 is October-December 2014: inside 2014, and not 2015.
		{"odd length 2014", "http://cnn.com/", "20141", Match{Key: "com,cnn)/", Value: "20~/10", Distance: 0, Time: "2014"}},
		// 11 digits (hour tens) and a 13-digit range end.
		{"odd range", "http://apple.com/x", "2011010100:2012123123595", Match{Key: "com,apple)/*", Value: "100/40", Distance: 2, Time: "2010:2012"}},
		// A range ending at a millisecond just past 2012 is no longer
		// inside 2010:2012.
		{"past the end", "http://apple.com/x", "2011:20130101000000001", Match{Key: "com,apple)/*", Value: "300/90", Distance: 2, Time: ":"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.LookupAt(tt.in, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			got.Frequency = ukvs.Frequency{}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("LookupAt(%q, %q) (-want +got):\n%s", tt.in, tt.at, d)
			}
		})
	}
}

// TestLookupAtWithoutDatetimeColumn: a map without a datetime column
// answers LookupAt as Lookup, whatever valid datetime is given, and refuses
// a value that is not a datetime as a datetime map does.
func TestLookupAtWithoutDatetimeColumn(t *testing.T) {
	m := FromBytes([]byte("com,apple)/ 5/2\ncom,apple)/* 9/4\n"))
	want, err := m.Lookup("http://apple.com/")
	if err != nil || !want.Present() {
		t.Fatalf("Lookup = %+v, %v", want, err)
	}
	for _, at := range []string{"2015", "20141", "20160213052637263", "2010:2012", ":"} {
		got, err := m.LookupAt("http://apple.com/", at)
		if err != nil {
			t.Errorf("LookupAt(%q): %v", at, err)
		} else if d := cmp.Diff(want, got); d != "" {
			t.Errorf("LookupAt(%q) differs from Lookup (-want +got):\n%s", at, d)
		}
	}
	dt := FromBytes([]byte(datetimeMap))
	for _, bad := range []string{"2016-03", "201613", "2016:2015", "x"} {
		_, errPlain := m.LookupAt("http://apple.com/", bad)
		_, errDT := dt.LookupAt("http://apple.com/", bad)
		if !errors.Is(errPlain, ErrDatetime) || errPlain == nil || errDT == nil || errPlain.Error() != errDT.Error() {
			t.Errorf("LookupAt(%q): plain map %v, datetime map %v; want the same ErrDatetime error from both", bad, errPlain, errDT)
		}
	}
}

// TestParseDatetime: the bounds of a lookup's datetime are those of
// timestamp.Bounds.
func TestParseDatetime(t *testing.T) {
	for _, tt := range []struct{ in, lo, hi string }{
		{"2014", "20140101000000", "20141231235959"},
		{"20141", "20141001000000", "20141231235959"},
		{"201602", "20160201000000", "20160229235959"},
		{"20150314123456789", "20150314123456789", "20150314123456789"},
		{"2010:2012", "20100101000000", "20121231235959"},
		{":2009", "", "20091231235959"},
		{"2016:", "20160101000000", ""},
		{":", "", ""},
	} {
		lo, hi, err := ParseDatetime(tt.in)
		if err != nil || lo != tt.lo || hi != tt.hi {
			t.Errorf("ParseDatetime(%q) = %q, %q, %v; want %q, %q", tt.in, lo, hi, err, tt.lo, tt.hi)
		}
	}
}

// TestLookupAtRangeOverlap: a range that overlaps a key's period finds it
// (no false negative), for random periods and ranges of years.
func TestLookupAtRangeOverlap(t *testing.T) {
	const head = "!fields {\"keys\": [\"surt\", \"datetime\"], \"values\": [\"frequency\"]}\n"
	m := FromBytes([]byte(head + "org,x)/ 2012 5\n"))
	for _, at := range []string{"2012", "2012:2012", "2011:2013", "2012:2020", ":2012", "2012:", "201206:2013"} {
		if got, err := m.LookupAt("http://x.org/", at); err != nil || !got.Present() || got.Key != "org,x)/" {
			t.Errorf("LookupAt(%q) = %+v, %v: want the line 2012", at, got, err)
		}
	}
	if got, _ := m.LookupAt("http://x.org/", "2013:2014"); got.Present() {
		t.Errorf("LookupAt(2013:2014) = %+v: no line overlaps it", got)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	period := func() (string, int, int) {
		a, b := 2000+rng.IntN(20), 2000+rng.IntN(20)
		if a > b {
			a, b = b, a
		}
		if a == b {
			return strconv.Itoa(a), a, b
		}
		return strconv.Itoa(a) + ":" + strconv.Itoa(b), a, b
	}
	for range 2000 {
		p, pa, pb := period()
		q, qa, qb := period()
		m := FromBytes([]byte(head + "org,x)/ " + p + " 3\n"))
		got, err := m.LookupAt("http://x.org/", q)
		if err != nil {
			t.Fatal(err)
		}
		if want := qa <= pb && pa <= qb; got.Present() != want {
			t.Fatalf("line %q, LookupAt(%q): present %v, want %v", p, q, got.Present(), want)
		}
	}
}

// TestStatsBadFieldCount reads a datetime map with a line that lacks its
// frequency column: counted as bad with its file and line, in no other
// figure (not as a data line, key or exclusion).
func TestStatsBadFieldCount(t *testing.T) {
	p := filepath.Join(t.TempDir(), "datetime.ukvs")
	if err := os.WriteFile(p, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
com,twitter)/* 2015
com,twitter)/* : 100/35
`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.Stats()
	if err != nil {
		t.Fatal(err)
	}
	want := p + ": ukvs: line 3: wrong number of columns: 2 columns, want 3"
	if st.Bad != 1 || len(st.BadLines) != 1 || st.BadLines[0] != want || st.Lines != 2 || st.Keys != 1 || st.Exclusions != 0 {
		t.Errorf("stats %+v; want 1 bad line %q and 2 data lines", st, want)
	}
}
