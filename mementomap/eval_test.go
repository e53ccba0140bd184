package mementomap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/timestamp"
	"github.com/mementokit/mementokit/ukvs"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{
			name: "union with sums and bounds",
			a:    lines("!meta {\"name\": \"a\"}", "com,a)/ 5/1", "com,b)/* 10+/3", "com,c)/x 1/1"),
			b:    lines("!meta {\"name\": \"b\"}", "com,a)/ 2/1", "com,b)/* 4~/1", "com,d)/ 1/1"),
			want: lines("!meta {\"name\": \"a\"}", "com,a)/ 7/2-", "com,b)/* 14~/4-", "com,c)/x 1/1", "com,d)/ 1/1"),
		},
		{
			name: "lone exclusion dropped, agreed exclusion kept",
			a:    lines("com,b)/* 10", "com,b)/private 0", "com,c)/x 0"),
			b:    lines("com,b)/private 3", "com,c)/x 0"),
			want: lines("com,b)/* 10", "com,b)/private 3", "com,c)/x 0"),
		},
		{
			name: "same archive id",
			a:    lines("!id {\"uri\": \"x\"}", "com,a)/ 1"),
			b:    lines("!id  {\"uri\": \"x\"} ", "com,b)/ 1"),
			want: lines("!id {\"uri\": \"x\"}", "com,a)/ 1", "com,b)/ 1"),
		},
		{
			name: "same archive id written differently",
			a:    lines("!id {\"uri\": \"x\"}", "com,a)/ 1"),
			b:    lines("!id {\"uri\":\"x\", \"note\": 1}", "com,b)/ 1"),
			want: lines("!id {\"uri\": \"x\"}", "com,a)/ 1", "com,b)/ 1"),
		},
		{
			name: "an id naming no archive merges with any",
			a:    lines("!id {\"uri\":\"\"}", "com,a)/ 1"),
			b:    lines("!id {\"uri\": \"x\"}", "com,b)/ 1"),
			want: lines("!id {\"uri\":\"\"}", "com,a)/ 1", "com,b)/ 1"),
		},
		{
			name: "byte order marks skipped",
			a:    "\xef\xbb\xbf" + lines("com,a)/ 1", "com,b)/ 1"),
			b:    "\xef\xbb\xbf" + lines("com,c)/ 1"),
			want: lines("com,a)/ 1", "com,b)/ 1", "com,c)/ 1"),
		},
		{
			name: "one side empty",
			a:    "",
			b:    lines("!id {\"uri\": \"x\"}", "com,a)/ 1"),
			want: lines("!id {\"uri\": \"x\"}", "com,a)/ 1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := Merge(&out, strings.NewReader(tt.a), strings.NewReader(tt.b)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, out.String()); d != "" {
				t.Errorf("Merge (-want +got):\n%s", d)
			}
		})
	}
	if _, err := Merge(&bytes.Buffer{}, strings.NewReader(lines("com,b)/ 1", "com,a)/ 1")), strings.NewReader("")); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("unsorted input: err = %v, want ErrOutOfOrder", err)
	}
	var out bytes.Buffer
	a, b := lines("!id {\"uri\": \"https://a/\"}", "com,a)/ 1"), lines("!id {\"uri\": \"https://b/\"}", "com,b)/ 1")
	if _, err := Merge(&out, strings.NewReader(a), strings.NewReader(b)); !errors.Is(err, ErrDifferentArchives) || out.Len() != 0 {
		t.Errorf("maps of two archives: err = %v, output %q; want ErrDifferentArchives and no output", err, out.String())
	}
}

func TestLookupURLAndBatch(t *testing.T) {
	m := FromBytes([]byte(lines("com,example)/ 3/1", "com,example)/a/* 7/4", "org,x)/q 0")))
	got, err := m.Lookup("https://WWW.Example.com/a/b?z=1")
	if err != nil || got.Key != "com,example)/a/*" || !got.Present() {
		t.Errorf("Lookup(URL) = %+v, %v", got, err)
	}
	in := "http://example.com/\n\n# comment\ncom,example)/a\norg,x)/q\nhttp://nowhere.net/\n"
	var out bytes.Buffer
	st, err := m.LookupAll(&out, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := "http://example.com/\tcom,example)/\t3/1\n\n# comment\ncom,example)/a\tcom,example)/a/*\t7/4\norg,x)/q\torg,x)/q\t0\nhttp://nowhere.net/\t-\t-\n"
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("LookupAll (-want +got):\n%s", d)
	}
	if d := cmp.Diff(BatchStats{Lookups: 4, Present: 2, Absent: 2}, st); d != "" {
		t.Errorf("stats (-want +got):\n%s", d)
	}
}

// TestEvaluateGenerated builds a map from a generated index, compacts it
// with the paper's weights, and evaluates every map against lookups with a
// stated share of held URIs: recall must be 1 everywhere.
func TestEvaluateGenerated(t *testing.T) {
	var idx, lk bytes.Buffer
	cfg := cdxgen.Config{Lines: 30000, Seed: 9}
	if _, err := cdxgen.New(cfg).Write(&idx); err != nil {
		t.Fatal(err)
	}
	if _, err := cdxgen.WriteLookups(&lk, cfg, cdxgen.LookupConfig{N: 3000, Held: 0.3}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var base bytes.Buffer
	bst, err := Build(ctx, &base, []cdxj.Searcher{cdxj.NewStream("gen", bytes.NewReader(idx.Bytes()), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bst.Mismatched != 0 {
		t.Errorf("generated keys differ from canonicalized URLs: %v", bst.MismatchExamples)
	}
	truth, err := LoadTruth(ctx, []cdxj.Searcher{cdxj.NewStream("gen", bytes.NewReader(idx.Bytes()), nil)}, strings.Fields(lk.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, h := range truth.Held {
		if h {
			held++
		}
	}
	if held != 900 {
		t.Errorf("%d lookups held, want 900", held)
	}
	prev := base.String()
	var costs []float64
	for _, w := range []float64{math.Inf(1), 4, 2, 1, 0.5, 0.25, 0} {
		cur := prev
		if !math.IsInf(w, 1) {
			cur, _ = compactString(t, prev, opts(w, w, false))
		}
		e, err := Evaluate(FromBytes([]byte(cur)), truth)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Check(); err != nil || e.Recall != 1 {
			t.Fatalf("W=%v: %v (%+v)", w, err, e)
		}
		if math.IsInf(w, 1) && (e.Accuracy != 1 || e.Precision != 1) {
			t.Errorf("baseline map: accuracy %v precision %v, want 1 and 1", e.Accuracy, e.Precision)
		}
		costs = append(costs, e.RelativeCost)
		prev = cur
	}
	for i := 1; i < len(costs); i++ {
		if costs[i] > costs[i-1] {
			t.Errorf("relative cost grew along the chain: %v", costs)
		}
	}
	if costs[0] > 1 || costs[len(costs)-1] >= costs[0] {
		t.Errorf("relative costs %v: baseline ≤ 1 and compaction must shrink", costs)
	}
}

func TestEvalCheck(t *testing.T) {
	e := Eval{TruePositive: 3, FalseNegative: 1, FalseNegatives: []string{"http://x/"}}
	if err := e.Check(); !errors.Is(err, ErrFalseNegative) {
		t.Errorf("Check() = %v, want ErrFalseNegative", err)
	}
	if err := (Eval{TruePositive: 3}).Check(); err != nil {
		t.Errorf("Check() = %v, want nil", err)
	}
}

// TestLookupInputForms: URLs with ')' in their path (with or without a
// scheme) are canonicalized, SURTs with "://" in their query are not.
func TestLookupInputForms(t *testing.T) {
	m := FromBytes([]byte(lines("com,example)/a)b 1", "com,example)/r 2", "com,example:8080)/p 3", "com,xn--bcher-kva)/ 4")))
	tests := []struct{ name, in, key string }{
		{"URL with paren in path", "http://example.com/a)b", "com,example)/a)b"},
		{"URL without scheme, paren in path", "example.com/a)b", "com,example)/a)b"},
		{"URL without scheme, paren in query", "example.com/r?x=(1)", "com,example)/r"},
		{"SURT with a URL in its query", "com,example)/r?u=http://x.org/", "com,example)/r"},
		{"SURT with paren in path", "com,example)/a)b", "com,example)/a)b"},
		{"escaped paren", "http://example.com/a%29b", "com,example)/a)b"},
		{"port", "http://example.com:8080/p", "com,example:8080)/p"},
		{"IDN", "http://bücher.com/", "com,xn--bcher-kva)/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Lookup(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Key != tt.key || !got.Present() {
				t.Errorf("Lookup(%q) = %+v, want key %q present", tt.in, got, tt.key)
			}
		})
	}
}

// TestLookupAllLongLines: a line past MaxLineLength is answered "-" and
// the batch goes on (it used to stop the run); a long held key is found.
func TestLookupAllLongLines(t *testing.T) {
	longKey := "com,example)/" + strings.Repeat("x", 512<<10)
	m := FromBytes([]byte(lines("com,example)/a 1", longKey+" 2")))
	tooLong := "com,example)/" + strings.Repeat("y", MaxLineLength)
	tests := []struct {
		name, in, want string
		st             BatchStats
	}{
		{"long held key", longKey + "\n", longKey + "\t" + longKey + "\t2\n", BatchStats{Lookups: 1, Present: 1}},
		{"too long, then more", tooLong + "\r\ncom,example)/a\n", tooLong + "\t-\t-\ncom,example)/a\tcom,example)/a\t1\n", BatchStats{Lookups: 2, Present: 1, Errors: 1}},
		{"too long at the end without newline", "com,example)/a\n" + tooLong, "com,example)/a\tcom,example)/a\t1\n" + tooLong + "\t-\t-\n", BatchStats{Lookups: 2, Present: 1, Errors: 1}},
		{"last line without newline", "com,example)/a", "com,example)/a\tcom,example)/a\t1\n", BatchStats{Lookups: 1, Present: 1}},
		{"a URL that does not canonicalize", "com,example)/a\n\nhttp://example.com:99999/\n", "com,example)/a\tcom,example)/a\t1\n\nhttp://example.com:99999/\t-\t-\n", BatchStats{Lookups: 2, Present: 1, Errors: 1}},
	}
	firstErr := map[string]string{
		"too long, then more":                 "lookup input line 1 ",
		"too long at the end without newline": "lookup input line 2 ",
		"a URL that does not canonicalize":    `lookup input line 3 "http://example.com:99999/": `,
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			st, err := m.LookupAll(&out, strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("LookupAll output: %d bytes, want %d (%.80q…)", out.Len(), len(tt.want), out.String())
			}
			first := st.FirstError
			st.FirstError = nil
			if d := cmp.Diff(tt.st, st); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
			if want := firstErr[tt.name]; (want == "") != (first == nil) || first != nil && !strings.Contains(first.Error(), want) {
				t.Errorf("FirstError %v, want one containing %q", first, want)
			}
		})
	}
}

// TestMergeLoneCR: a line holding a lone CR stops Merge (lookups in the
// output would not see it).
func TestMergeLoneCR(t *testing.T) {
	_, err := Merge(&bytes.Buffer{}, strings.NewReader("com,a)/ 1\rcom,b)/ 1\n"), strings.NewReader(""))
	if !errors.Is(err, ErrLoneCR) {
		t.Errorf("err = %v, want ErrLoneCR", err)
	}
}

// TestMergeMany: a k-way merge of maps with disjoint keys is exact (the
// same bytes as one Build of all their inputs); where keys are shared, the
// summed URI-R count is written as an upper bound; an exclusion is kept
// only when every map agrees.
func TestMergeMany(t *testing.T) {
	lowPartBytes(t, 4<<10)
	_, g := shapes(t)
	ix := openAll(t, g.Flat)[0].(cdxj.Index)
	parts, err := cdxj.Plan(context.Background(), []cdxj.Index{ix}, 4)
	if err != nil || len(parts) < 3 {
		t.Fatalf("%d parts, %v", len(parts), err)
	}
	o := BuildOptions{Now: fixedNow}
	var maps []io.Reader
	for _, p := range parts {
		var b bytes.Buffer
		if _, err := BuildPart(context.Background(), &b, ix, p, &o); err != nil {
			t.Fatal(err)
		}
		maps = append(maps, &b)
	}
	var out bytes.Buffer
	if _, err := Merge(&out, maps...); err != nil {
		t.Fatal(err)
	}
	want, _ := buildWith(t, 1, o, g.Flat)
	data := func(m string) string { // the data lines
		i := strings.Index(m, "\n!meta ")
		return m[i+1+strings.IndexByte(m[i+1:], '\n')+1:]
	}
	if data(out.String()) != data(want) {
		t.Errorf("Merge of %d disjoint partial maps differs from Build", len(parts))
	}

	a := lines("com,a)/ 5/1", "com,b)/ 1/1", "com,x)/ 0", "com,y)/ 0")
	b := lines("com,a)/ 2/1", "com,x)/ 0", "com,y)/ 0")
	c := lines("com,a)/ 3+/2+", "com,b)/ 4/2", "com,y)/ 0", "com,z)/ 1/1")
	out.Reset()
	st, err := Merge(&out, strings.NewReader(a), strings.NewReader(b), strings.NewReader(c))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(lines("com,a)/ 10+/4~", "com,b)/ 5/3-", "com,y)/ 0", "com,z)/ 1/1"), out.String()); d != "" {
		t.Errorf("Merge of three maps (-want +got):\n%s", d)
	}
	if st.Both != 3 || st.Exclusions != 2 || st.Lines != 4 {
		t.Errorf("stats %+v", st)
	}
}

// TestEvaluateObservedExpiry evaluates an observed map as the aggregator
// routes with it: a negative is absent while trusted, and once older than
// the map's max age it says nothing (the archive is asked), so it counts as
// present, a true positive for a URI-R the index came to hold and a false
// positive for one it still does not, never a false negative.
func TestEvaluateObservedExpiry(t *testing.T) {
	// The archive's index: b was captured after the observation said none.
	idx := lines(
		`com,example)/a 20231110000000 {"url": "http://example.com/a", "mime": "text/html", "status": "200"}`,
		`com,example)/b 20240102000000 {"url": "http://example.com/b", "mime": "text/html", "status": "200"}`,
	)
	om := lines(
		`!fields {"keys": ["surt", "observed"], "values": ["frequency"]}`,
		`!meta {"type": "MementoMap", "negatives_max_age": "48h"}`,
		`* - /`,
		`com,example)/a 20240101000000 1/1`,
		`com,example)/b 20240101000000 0`,
		`com,example)/c 20240101000000 0`,
	)
	lookups := []string{"http://example.com/a", "http://example.com/b", "http://example.com/c", "http://example.com/d"}
	truth, err := LoadTruth(context.Background(), []cdxj.Searcher{cdxj.NewStream("idx.cdxj", strings.NewReader(idx), nil)}, lookups, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false, false}; !slices.Equal(truth.Held, want) {
		t.Fatalf("held %v, want %v", truth.Held, want)
	}
	m := FromBytes([]byte(om))
	at := func(s string) time.Time { t, _ := timestamp.Parse(s); return t }
	tests := []struct {
		name, now          string
		tp, fp, tn, fn, ex int64
	}{
		// Trusted negatives: b is missed (a memento added since the
		// observation, inside the max age: the documented limit), c is a
		// true negative; d was never observed (present).
		{"trusted", "20240102000000", 1, 1, 1, 1, 0},
		{"at the max age", "20240103000000", 1, 1, 1, 1, 0},
		// Expired: b and c say nothing, the archive is asked.
		{"expired", "20240103000001", 2, 2, 0, 0, 2},
		// An observation after the time of the lookups is not trusted.
		{"before the observation", "20231231000000", 2, 2, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := EvaluateAt(m, truth, at(tt.now))
			if err != nil {
				t.Fatal(err)
			}
			got := [5]int64{e.TruePositive, e.FalsePositive, e.TrueNegative, e.FalseNegative, e.Expired}
			if want := [5]int64{tt.tp, tt.fp, tt.tn, tt.fn, tt.ex}; got != want {
				t.Errorf("TP FP TN FN expired = %v, want %v (%+v)", got, want, e)
			}
		})
	}
	if e, err := EvaluateAt(m, truth, at("20240103000001")); err != nil || e.Check() != nil || e.Recall != 1 {
		t.Errorf("expired negatives: %+v, %v; want recall 1", e, err)
	}
}

// TestLookupAllSecondFieldUntimedMap: in a map without a datetime key
// column an input "URI DATETIME" is answered as "URI" (a held URI is never
// a miss for its second field), and a second field that is no datetime is
// an input that could not be looked up, naming its line, not a miss.
func TestLookupAllSecondFieldUntimedMap(t *testing.T) {
	m := FromBytes([]byte(lines("br,com,luzluzziio)/2010 1/1", "com,example)/a 3")))
	in := "http://luzluzziio.com.br/2010 20150101000000\n" +
		"com,example)/a\t2015\n" +
		"http://luzluzziio.com.br/2010 extra\n" +
		"com,example)/a 2015 2016\n"
	want := "http://luzluzziio.com.br/2010 20150101000000\tbr,com,luzluzziio)/2010\t1/1\n" +
		"com,example)/a 2015\tcom,example)/a\t3\n" +
		"http://luzluzziio.com.br/2010 extra\t-\t-\n" +
		"com,example)/a 2015 2016\t-\t-\n"
	var out bytes.Buffer
	st, err := m.LookupAll(&out, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("LookupAll output (-want +got):\n%s", d)
	}
	if st.Lookups != 4 || st.Present != 2 || st.Absent != 0 || st.Errors != 2 {
		t.Errorf("stats %+v, want 4 lookups, 2 present, 0 absent, 2 errors", st)
	}
	if st.FirstError == nil || !strings.Contains(st.FirstError.Error(), "line 3") || !strings.Contains(st.FirstError.Error(), "extra") {
		t.Errorf("FirstError %v, want one naming line 3 and its field", st.FirstError)
	}

	// A datetime for all inputs is checked and then does not change the
	// answer; one that is no datetime is an error.
	out.Reset()
	st, err = m.LookupAllAt(&out, strings.NewReader("http://luzluzziio.com.br/2010\n"), "2015")
	if err != nil || st.Present != 1 || st.Errors != 0 {
		t.Errorf("LookupAllAt 2015: %+v, %v; want 1 present", st, err)
	}
	out.Reset()
	st, _ = m.LookupAllAt(&out, strings.NewReader("http://luzluzziio.com.br/2010\n"), "soon")
	if st.Errors != 1 || st.Present != 0 {
		t.Errorf("LookupAllAt soon: %+v; want 1 error", st)
	}
}

// TestStatsUnsorted: Stats of a map with two data lines swapped is an
// error naming the file and the line out of order, not figures.
func TestStatsUnsorted(t *testing.T) {
	m := openMap(t, "!fields {keys: [\"surt\"], values: [\"frequency\"]}\ncom,a)/ 1\ncom,c)/ 2\ncom,b)/ 3\ncom,d)/ 4\n")
	_, err := m.Stats()
	if !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(fmt.Sprint(err), "map.ukvs: line 4") {
		t.Errorf("Stats of an unsorted map: %v; want ErrOutOfOrder naming map.ukvs: line 4", err)
	}
}
