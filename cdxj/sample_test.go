package cdxj

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// stats is what expected/*.expect.json record under "stats_computed_by_us"
// (the members this package can check).
type stats struct {
	Records        int            `json:"records"`
	DistinctKeys   int            `json:"distinct_urlkeys"`
	DistinctPairs  int            `json:"distinct_urlkey_timestamp_pairs"`
	Years          map[string]int `json:"years"`
	TimestampLens  map[string]int `json:"timestamp_lengths"`
	MIME           map[string]int `json:"mime"`
	Status         map[string]int `json:"status"`
	Sorted         bool           `json:"sorted_by_urlkey_then_timestamp"`
	Revisits       *int           `json:"revisit_records,omitempty"`
	RevisitsDash   *int           `json:"revisits_with_status_dash,omitempty"`
	OriginalURLs   map[string]int `json:"distinct_original_urls,omitempty"`
	JSONKeys       map[string]int `json:"json_keys,omitempty"`
	Keysets        map[string]int `json:"keysets,omitempty"`
	FilenameSlash  *int           `json:"filename_has_slash,omitempty"`
	LengthDash     *int           `json:"length_dash,omitempty"`
	HeaderPrefixes []string       `json:"header_lines,omitempty"`
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := sampledata.ReadFile("real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// computeStats reads input with a fresh Reader and computes the members of
// want that are set, so that a comparison covers exactly those.
func computeStats(t *testing.T, input []byte, want stats) stats {
	t.Helper()
	r := NewReader(bytes.NewReader(input))
	r.ReuseRecord = true
	got := stats{Years: map[string]int{}, TimestampLens: map[string]int{}, MIME: map[string]int{}, Status: map[string]int{}, Sorted: true}
	keys := map[string]bool{}
	pairs := map[string]bool{}
	var prev string
	count := func(p **int) {
		if *p == nil {
			*p = new(int)
		}
		**p++
	}
	zero := func(p **int, w *int) {
		if w != nil && *p == nil {
			*p = new(int)
		}
	}
	zero(&got.Revisits, want.Revisits)
	zero(&got.RevisitsDash, want.RevisitsDash)
	zero(&got.FilenameSlash, want.FilenameSlash)
	zero(&got.LengthDash, want.LengthDash)
	if want.OriginalURLs != nil {
		got.OriginalURLs = map[string]int{}
	}
	if want.JSONKeys != nil {
		got.JSONKeys = map[string]int{}
	}
	if want.Keysets != nil {
		got.Keysets = map[string]int{}
	}
	for rec, err := range r.All() {
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		got.Records++
		k, ts := string(rec.Key()), string(rec.Timestamp())
		keys[k] = true
		pairs[k+" "+ts] = true
		if cur := k + " " + ts; cur < prev {
			got.Sorted = false
		} else {
			prev = cur
		}
		got.Years[strconv.Itoa(rec.Year())]++
		got.TimestampLens[strconv.Itoa(len(ts))]++
		mime := string(rec.MIME())
		if mime == "" {
			mime = "-"
		}
		got.MIME[mime]++
		status := "-"
		if s := rec.Status(); s != 0 {
			status = strconv.Itoa(s)
		}
		got.Status[status]++
		if rec.IsRevisit() {
			if want.Revisits != nil {
				count(&got.Revisits)
			}
			if want.RevisitsDash != nil && rec.Status() == 0 {
				count(&got.RevisitsDash)
			}
		}
		if got.OriginalURLs != nil {
			got.OriginalURLs[string(rec.URL())]++
		}
		if want.FilenameSlash != nil && bytes.IndexByte(rec.Filename(), '/') >= 0 {
			count(&got.FilenameSlash)
		}
		if _, ok := rec.Length(); want.LengthDash != nil && !ok {
			count(&got.LengthDash)
		}
		if got.JSONKeys != nil || got.Keysets != nil {
			var names []string
			if err := rec.Fields(func(k, _ []byte) bool { names = append(names, string(k)); return true }); err != nil {
				t.Fatal(err)
			}
			if got.JSONKeys != nil {
				got.JSONKeys[strings.Join(names, ",")]++
			}
			if got.Keysets != nil {
				got.Keysets[strings.Join(names, ",")]++
			}
		}
	}
	got.DistinctKeys, got.DistinctPairs = len(keys), len(pairs)
	if want.HeaderPrefixes != nil {
		for _, h := range r.Header() {
			name, _, _ := strings.Cut(h, " ")
			got.HeaderPrefixes = append(got.HeaderPrefixes, name)
		}
	}
	return got
}

// TestSampleStats checks every statistic the expected/ files give for the
// real index files.
func TestSampleStats(t *testing.T) {
	type expectFile struct {
		Stats       *stats `json:"stats_computed_by_us"`
		IPWBSample1 *stats `json:"sample-1_stats_computed_by_us"`
	}
	tests := []struct {
		expect, file string
		pick         func(expectFile) *stats
	}{
		{"cc_commoncrawl-org_from-cdxapi", "cc_commoncrawl-org_from-cdxapi.cdxj", func(e expectFile) *stats { return e.Stats }},
		{"ia_cdxapi_from-json", "ia_cdxapi_from-json.cdx7", func(e expectFile) *stats { return e.Stats }},
		{"openwayback_archive-org", "openwayback_archive-org.cdx", func(e expectFile) *stats { return e.Stats }},
		{"ipwb", "ipwb_sample-1.cdxj", func(e expectFile) *stats { return e.IPWBSample1 }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := sampledata.ReadFile("real/expected/" + tt.expect + ".expect.json")
			if err != nil {
				t.Fatal(err)
			}
			var ef expectFile
			if err := json.Unmarshal(raw, &ef); err != nil {
				t.Fatal(err)
			}
			want := tt.pick(ef)
			if want == nil || want.Records == 0 {
				t.Fatalf("%s: no stats found", tt.expect)
			}
			got := computeStats(t, readSample(t, tt.file), *want)
			if diff := cmp.Diff(*want, got); diff != "" {
				t.Errorf("stats mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIPWBTimeMap: the ipwb TimeMap has six headers and five records whose
// JSON is invalid; the records read, and asking for a JSON field names the
// line.
func TestIPWBTimeMap(t *testing.T) {
	raw, err := sampledata.ReadFile("real/expected/ipwb.expect.json")
	if err != nil {
		t.Fatal(err)
	}
	var ef struct {
		M struct {
			Headers   []string `json:"header_lines"`
			Records   int      `json:"records"`
			JSONValid []bool   `json:"json_valid"`
		} `json:"5mementos"`
	}
	if err := json.Unmarshal(raw, &ef); err != nil {
		t.Fatal(err)
	}
	r := NewReader(bytes.NewReader(readSample(t, "ipwb_5mementos-timemap.cdxj")))
	var valid []bool
	var keys []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		keys = append(keys, string(rec.Key()))
		if !bytes.Equal(rec.Key(), rec.Timestamp()) {
			t.Errorf("line %d: key %q, timestamp %q: a TimeMap key is its datetime", rec.LineNumber(), rec.Key(), rec.Timestamp())
		}
		_, _, uerr := rec.Field("uri") // before the fault, but the block is bad
		_, _, ferr := rec.Field("datetime")
		cerr := rec.CheckJSON()
		valid = append(valid, cerr == nil)
		for _, err := range []error{uerr, ferr, cerr} {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrJSON) || pe.Line != rec.LineNumber() || pe.Column == 0 {
				t.Errorf("line %d: got error %v, want a *ParseError wrapping ErrJSON at this line", rec.LineNumber(), err)
			}
		}
	}
	var prefixes []string
	for _, h := range r.Header() {
		name, _, _ := strings.Cut(h, " ")
		prefixes = append(prefixes, name)
	}
	if diff := cmp.Diff(ef.M.Headers, prefixes); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ef.M.JSONValid, valid); diff != "" {
		t.Errorf("json validity (-want +got):\n%s", diff)
	}
	if len(keys) != ef.M.Records || !slices.IsSorted(keys) {
		t.Errorf("keys %v: want %d sorted datetimes", keys, ef.M.Records)
	}
}

// TestCDXJIndexerOutputs checks what webrecorder/cdxj-indexer's tests
// assert about its outputs (expected/cdxjindexer.expect.json).
func TestCDXJIndexerOutputs(t *testing.T) {
	type rec struct {
		Key, TS, MIME string
		Status        int
		Length        int64
		Offset        int64
		Revisit       bool
	}
	read := func(t *testing.T, name string) ([]rec, *Reader) {
		r := NewReader(bytes.NewReader(readSample(t, name)))
		var out []rec
		for x, err := range r.All() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			l, _ := x.Length()
			o, _ := x.Offset()
			out = append(out, rec{string(x.Key()), string(x.Timestamp()), string(x.MIME()), x.Status(), l, o, x.IsRevisit()})
		}
		return out, r
	}
	t.Run("all-records", func(t *testing.T) {
		got, _ := read(t, "cdxjindexer_example-warc_all-records.cdxj")
		want := []rec{
			{"-", "20170306040353", "application/warc-fields", 0, 353, 0, false},
			{"-", "20170306040353", "application/warc-fields", 0, 431, 353, false},
			{"com,example)/", "20170306040206", "text/html", 200, 1242, 784, false},
			{"com,example)/", "20170306040206", "", 0, 609, 2026, false},
			{"com,example)/", "20170306040348", "warc/revisit", 200, 585, 2635, true},
			{"com,example)/", "20170306040348", "", 0, 609, 3220, false},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("cdx09", func(t *testing.T) {
		got, r := read(t, "cdxjindexer_example-warc.cdx9")
		if diff := cmp.Diff([]string{" CDX N b a m s k r V g"}, r.Header()); diff != "" {
			t.Errorf("header (-want +got):\n%s", diff)
		}
		if l := r.HeaderLayout(); l == nil || l.Columns() != 9 {
			t.Errorf("HeaderLayout = %v, want 9 columns", l)
		}
		want := []rec{
			{"com,example)/", "20170306040206", "text/html", 200, 0, 784, false},
			{"com,example)/", "20170306040348", "warc/revisit", 200, 0, 2635, true},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("bad-arc", func(t *testing.T) {
		got, _ := read(t, "cdxjindexer_bad-arc.cdx")
		want := []rec{
			{"com,example)/", "20140401000000", "", 0, 67, 134, false},
			{"com,example)/", "20140102000000", "", 0, 59, 202, false},
			{"com,example)/", "20140401000000", "", 0, 68, 262, false},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("post-append", func(t *testing.T) {
		r := NewReader(bytes.NewReader(readSample(t, "cdxjindexer_post-append.cdxj")))
		n := 0
		for x, err := range r.All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
			m, ok, err := x.Field("method")
			if err != nil || !ok || m != "POST" {
				t.Errorf("line %d: method = %q, %v, %v", x.LineNumber(), m, ok, err)
			}
			if !bytes.Contains(x.Key(), []byte("__wb_method=post")) || bytes.Contains(x.URL(), []byte("__wb_method")) {
				t.Errorf("line %d: key %q url %q: the POST body is appended to the key only", x.LineNumber(), x.Key(), x.URL())
			}
		}
		if n != 6 {
			t.Errorf("%d records, want 6", n)
		}
	})
}

// TestEveryIndexFileReads: every shipped index file reads without error,
// and its records plus headers account for each of its lines.
func TestEveryIndexFileReads(t *testing.T) {
	for _, name := range sampledata.IndexFiles() {
		t.Run(name, func(t *testing.T) {
			b, err := sampledata.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(bytes.NewReader(b))
			n := 0
			for {
				_, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			lines := bytes.Count(b, []byte("\n"))
			if n+len(r.Header()) != lines || r.LineNumber() != int64(lines) {
				t.Errorf("%d records + %d headers, line number %d; the file has %d lines", n, len(r.Header()), r.LineNumber(), lines)
			}
		})
	}
}
