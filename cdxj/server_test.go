package cdxj

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorded is one HTTP exchange of cocrawler/cdx_toolkit's fixtures
// (testdata/cdxserver/README.md): a real answer of web.archive.org or
// index.commoncrawl.org.
type recorded struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Params  map[string]any    `json:"request_params"`
	Status  int               `json:"response_status_code"`
	Body    string            `json:"response_text"`
	Headers map[string]string `json:"response_headers"`
}

func loadRecorded(t testing.TB, names ...string) []recorded {
	t.Helper()
	var out []recorded
	for _, name := range names {
		f, err := os.Open(filepath.Join("testdata", "cdxserver", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r recorded
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, r)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// param returns a recorded request parameter as the client would send it.
func (r recorded) param(name string) string {
	v, ok := r.Params[name]
	if !ok || v == nil {
		return ""
	}
	switch v := v.(type) {
	case float64:
		return strconv.Itoa(int(v))
	case []any:
		var s []string
		for _, e := range v {
			s = append(s, fmt.Sprint(e))
		}
		return strings.Join(s, "&")
	}
	return fmt.Sprint(v)
}

// replay serves recorded answers on 127.0.0.1. A request matches an
// exchange by path, url= (a trailing '*' in the recorded url read as
// matchType=prefix, as the servers read it), page= (absent is 0) and
// showNumPages; other parameters (limit, from, output) are the client's
// business and are checked by the tests. Every request is logged.
type replay struct {
	t    testing.TB
	recs []recorded
	mu   sync.Mutex
	log  []url.Values
	// before, when set, answers a request first (to inject faults).
	before func(w http.ResponseWriter, r *http.Request) bool
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rp.mu.Lock()
	rp.log = append(rp.log, q)
	rp.mu.Unlock()
	if rp.before != nil && rp.before(w, r) {
		return
	}
	for _, rec := range rp.recs {
		u, _ := url.Parse(rec.URL)
		if u.Path != r.URL.Path {
			continue
		}
		ru, rm := rec.param("url"), rec.param("matchType")
		if strings.HasSuffix(ru, "*") && rm == "" {
			ru, rm = strings.TrimSuffix(ru, "*"), "prefix"
		}
		if ru != q.Get("url") || rm != q.Get("matchType") {
			continue
		}
		if (rec.param("showNumPages") != "") != (q.Get("showNumPages") == "true") {
			continue
		}
		page := q.Get("page")
		if page == "" {
			page = "0"
		}
		if rp := rec.param("page"); rp != "" && rp != page {
			continue
		}
		if f := rec.param("filter"); f != "" && f != strings.Join(q["filter"], "&") {
			continue
		}
		if ct := rec.Headers["Content-Type"]; ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(rec.Status)
		io.WriteString(w, rec.Body)
		return
	}
	rp.t.Errorf("replay: no recorded answer for %s", r.URL)
	http.Error(w, "no recorded answer", http.StatusNotImplemented)
}

func (rp *replay) requests() []url.Values {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return slices.Clone(rp.log)
}

// fast are options for tests: no rate limit, short waits.
func fast() *ServerOptions {
	return &ServerOptions{Rate: -1, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, Timeout: 2 * time.Second}
}

// flatLines returns the data lines of a shipped real index file.
func flatLines(t testing.TB, name string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(string(readSampleTB(t, name)), "\n") {
		if l != "" && !isHeaderLine([]byte(l)) {
			out = append(out, l)
		}
	}
	return out
}

func readSampleTB(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "sampledata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func collectLines(t testing.TB, seq func(yield func([]byte, error) bool)) ([]string, error) {
	t.Helper()
	var out []string
	for l, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, string(l))
	}
	return out, nil
}

// TestServerCommonCrawlRecorded reads the recorded Common Crawl answers
// through the client: the page count, then page 0, and compares the lines
// with the flat file built from the same answers
// (internal/sampledata/real/cc_commoncrawl-org_from-cdxapi.cdxj).
func TestServerCommonCrawlRecorded(t *testing.T) {
	rp := &replay{t: t, recs: loadRecorded(t, "cdxtoolkit_test_multi_misc_not_ia_slow_4.jsonl", "cdxtoolkit_test_multi_cc1_slow_1.jsonl")}
	ts := httptest.NewServer(rp)
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/CC-MAIN-2025-33-index?url=commoncrawl.org/*", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	flat := flatLines(t, "cc_commoncrawl-org_from-cdxapi.cdxj")
	var got []string
	for rec, err := range s.Records(Query{Match: MatchPrefix}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(rec.Line()))
		// The same record a local file gives.
		fr, err := ParseLine(rec.Line(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(fr.URL()) != string(rec.URL()) || fr.Status() != rec.Status() || string(rec.MIME()) == "" {
			t.Errorf("record %s: fields differ from the flat file's", rec)
		}
	}
	if len(got) != 11 {
		t.Fatalf("got %d lines, the recorded page holds 11", len(got))
	}
	for _, l := range got {
		if !slices.Contains(flat, l) {
			t.Errorf("line not in the flat file:\n%s", l)
		}
	}
	reqs := rp.requests()
	if len(reqs) != 2 || reqs[0].Get("showNumPages") != "true" || reqs[1].Get("page") != "0" || reqs[1].Get("output") != "json" {
		t.Errorf("requests = %v, want the page count then page 0 in output=json", reqs)
	}
	if st := s.Stats(); st.Requests != 2 || st.Lines != 11 || st.Retries != 0 {
		t.Errorf("stats = %+v", st)
	}
}

// TestServerCommonCrawlEmpty: the Common Crawl server's 404 "No Captures
// found" is an empty answer, and a page past the end is its 400 message.
func TestServerCommonCrawlEmpty(t *testing.T) {
	rp := &replay{t: t, recs: loadRecorded(t, "cdxtoolkit_test_multi_cc1_slow_2.jsonl")}
	rp.before = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("showNumPages") == "true" {
			// No count was recorded for this URL: answer as pywb does for
			// one block that may hold the key.
			io.WriteString(w, `{"pages": 1, "pageSize": 5, "blocks": 1}`)
			return true
		}
		return false
	}
	ts := httptest.NewServer(rp)
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/CC-MAIN-2025-33-index", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, err := QueryForURL("commoncrawl.org/thisurlneverdidexist", MatchExact)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collectLines(t, s.Lines(q))
	if err != nil || len(got) != 0 {
		t.Fatalf("got %q, %v; want nothing and no error", got, err)
	}
	_, err = collectLines(t, s.Fetch(context.Background(), &Request{URL: "commoncrawl.org/thisurlneverdidexist", Paged: true, Page: 1}))
	var se *ServerError
	if !errors.As(err, &se) || se.Status != 400 || se.Message != "Page 1 invalid: First Page is 0, Last Page is 0" || se.Page != 1 {
		t.Fatalf("err = %v, want the server's 400 for page 1", err)
	}
	if !strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "page 1") {
		t.Errorf("error %q does not name the URL and the page", err)
	}
}

// TestServerCommonCrawlGatewayTimeout: a real 504 answer of
// index.commoncrawl.org is retried.
func TestServerCommonCrawlGatewayTimeout(t *testing.T) {
	recs := loadRecorded(t, "cdxtoolkit_test_multi_cc2_slow_1.jsonl")
	var fault recorded
	for _, r := range recs {
		if r.Status == 504 {
			fault = r
		}
	}
	var n atomic.Int32
	rp := &replay{t: t, recs: recs}
	rp.before = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/CC-MAIN-2017-34-index" {
			return false
		}
		if n.Add(1) == 1 {
			w.Header().Set("Content-Type", fault.Headers["Content-Type"])
			w.WriteHeader(fault.Status)
			io.WriteString(w, fault.Body)
			return true
		}
		return false
	}
	ts := httptest.NewServer(rp)
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/CC-MAIN-2017-34-index", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.noPages.Store(true) // no page count was recorded
	r := &Request{URL: "commoncrawl.org/", Match: MatchPrefix, From: "20170317000000", To: "20170913000000",
		Sort: SortClosest, Closest: "20170615", Limit: 3, Filters: []Filter{mustFilter(t, "status:200")}}
	got, err := collectLines(t, s.Fetch(context.Background(), r))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || s.Stats().Retries != 1 {
		t.Fatalf("got %d lines after %d retries, want 3 after 1", len(got), s.Stats().Retries)
	}
	flat := flatLines(t, "cc_commoncrawl-org_from-cdxapi.cdxj")
	for _, l := range got {
		if !slices.Contains(flat, l) {
			t.Errorf("line not in the flat file:\n%s", l)
		}
	}
}

func mustFilter(t testing.TB, s string) Filter {
	t.Helper()
	f, err := ParseFilter(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestServerWaybackRecorded reads the Internet Archive's recorded
// output=json answers (an array of rows after a row of field names) and
// compares them with the flat file built from them
// (internal/sampledata/real/ia_cdxapi_from-json.cdx7), record by record.
func TestServerWaybackRecorded(t *testing.T) {
	rp := &replay{t: t, recs: loadRecorded(t, "cdxtoolkit_test_multi_ia.jsonl", "cdxtoolkit_test_capture_object.jsonl")}
	ts := httptest.NewServer(rp)
	defer ts.Close()
	s, err := OpenServer(context.Background(), ts.URL+"/cdx/search/cdx?url=commoncrawl.org/*", fast())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Flavor() != FlavorWayback {
		t.Fatalf("flavour %v, want wayback from the path", s.Flavor())
	}
	flat := flatLines(t, "ia_cdxapi_from-json.cdx7")
	var got []string
	for rec, err := range s.Records(Query{Match: MatchPrefix}) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Layout() == nil || rec.Layout().String() != "CDX N b a m s k S" {
			t.Errorf("layout %v, want the header row's CDX N b a m s k S", rec.Layout())
		}
		got = append(got, string(rec.Line()))
	}
	want := flat[1:] // the flat file's first line is example.com's
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-flat +server):\n%s", diff)
	}
	reqs := rp.requests()
	if len(reqs) != 1 || reqs[0].Get("showResumeKey") != "true" || reqs[0].Get("limit") != "10000" || reqs[0].Get("output") != "json" {
		t.Errorf("requests %v: want one batch with showResumeKey, limit=10000, output=json", reqs)
	}

	// Records equal the flat file's field by field.
	fr := NewReader(strings.NewReader(strings.Join(flat, "\n")))
	var flatRecs []*Record
	for rec, err := range fr.All() {
		if err != nil {
			t.Fatal(err)
		}
		flatRecs = append(flatRecs, rec)
	}
	q, _ := QueryForURL("example.com", MatchExact)
	var one []*Record
	for rec, err := range s.Records(q) {
		if err != nil {
			t.Fatal(err)
		}
		one = append(one, rec.Clone())
	}
	if len(one) != 1 {
		t.Fatalf("example.com: %d records, want 1", len(one))
	}
	if diff := cmp.Diff(recordFields(flatRecs[0]), recordFields(one[0])); diff != "" {
		t.Errorf("example.com record (-flat +server):\n%s", diff)
	}
}

// recordFields lists what a Record says, for comparisons.
func recordFields(r *Record) map[string]string {
	m := map[string]string{}
	for _, f := range append(slices.Clone(FieldNames), "layout") {
		if f == "layout" {
			if l := r.Layout(); l != nil {
				m[f] = l.String()
			}
			continue
		}
		if v, ok := FieldValue(r, f); ok {
			m[f] = v
		}
	}
	m["time"] = r.Time().String()
	m["status#"] = strconv.Itoa(r.Status())
	return m
}
