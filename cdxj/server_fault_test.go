package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// smallCluster writes lines (sorted) as a ZipNum cluster of perBlock
// lines per block in a temporary folder and opens it.
func smallCluster(t testing.TB, lines []string, perBlock int) *Cluster {
	t.Helper()
	return buildCluster(t, t.TempDir(), "idx", lines, &ClusterOptions{LinesPerBlock: perBlock})
}

// pywbHandler is a minimal pywb CDX endpoint over s, written with this
// package's Request and Run: what a pywb server answers, for the fault
// tests (the full server is internal/archiveserver's).
func pywbHandler(t testing.TB, s Searcher) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := ParseRequest(r.URL.Query())
		if err != nil {
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"message": %q}`, err.Error())
			return
		}
		if req.ShowNumPages {
			pc, err := req.NumPages(s, nil)
			if err != nil {
				w.WriteHeader(400)
				fmt.Fprintf(w, `{"message": %q}`, err.Error())
				return
			}
			fmt.Fprintf(w, `{"pages": %d, "pageSize": %d, "blocks": %d}`, pc.Pages, pc.PageSize, pc.Blocks)
			return
		}
		var buf []byte
		for rec, err := range req.Run(s, nil) {
			if err != nil {
				var pe *PageError
				if errors.As(err, &pe) {
					w.WriteHeader(400)
					fmt.Fprintf(w, `{"message": %q}`, pe.Error())
					return
				}
				panic(http.ErrAbortHandler)
			}
			if buf, err = req.AppendRecord(buf[:0], rec); err != nil {
				t.Error(err)
			}
			w.Write(buf)
		}
	})
}

// syntheticLines returns n sorted CDXJ lines of a few hosts.
func syntheticLines(n int) []string {
	var out []string
	for i := range n {
		host := []string{"com,example)", "com,example,www)", "org,example)"}[i%3]
		out = append(out, fmt.Sprintf(`%s/p%04d 2020%02d01000000 {"url": "http://example/p%04d", "mime": "text/html", "status": "200", "length": "%d"}`,
			host, i, i%12+1, i, 100+i))
	}
	slices.Sort(out)
	return out
}

func TestServerPywbPaging(t *testing.T) {
	lines := syntheticLines(200)
	c := smallCluster(t, lines, 7)
	var reqs atomic.Int32
	h := pywbHandler(t, c)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		if ua := r.Header.Get("User-Agent"); ua != "test-agent/1" {
			t.Errorf("User-Agent %q", ua)
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	o := fast()
	o.PageSize = 2
	o.UserAgent = "test-agent/1"
	s, err := OpenServer(context.Background(), ts.URL+"/cdx?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Flavor() != FlavorPywb {
		t.Fatalf("flavour %v, want pywb from the page count answer", s.Flavor())
	}
	got, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range lines {
		if strings.HasPrefix(l, "com,example") {
			want = append(want, l)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	// 200 lines in 29 blocks; com,example* spans 20 of them: 10 pages of 2,
	// plus the probe and the count.
	if n := reqs.Load(); n != 12 {
		t.Errorf("%d requests, want 12 (probe, count, 10 pages)", n)
	}
	// A limit stops the paging early.
	got, err = collectLines(t, s.Lines(Query{Match: MatchPrefix, Limit: 5}))
	if err != nil || len(got) != 5 {
		t.Fatalf("limit 5: %d lines, %v", len(got), err)
	}
}

// faulty wraps h: the requests for which fault returns true get its
// answer instead.
func faulty(h http.Handler, fault func(n int, w http.ResponseWriter, r *http.Request) bool) (http.Handler, *atomic.Int32) {
	var n atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fault(int(n.Add(1)), w, r) {
			return
		}
		h.ServeHTTP(w, r)
	}), &n
}

func openFaulty(t *testing.T, h http.Handler, o *ServerOptions) *Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	if o == nil {
		o = fast()
	}
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/cdx?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestServerRetries(t *testing.T) {
	lines := syntheticLines(60)
	c := smallCluster(t, lines, 5)
	var want []string
	for _, l := range lines {
		if strings.HasPrefix(l, "com,example") {
			want = append(want, l)
		}
	}
	truncate := func(w http.ResponseWriter, r *http.Request, h http.Handler) {
		// The answer with a Content-Length it does not reach: the body
		// breaks off in the middle of a line.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		b := rec.Body.Bytes()
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(200)
		w.Write(b[:len(b)*2/3])
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close()
	}
	h := pywbHandler(t, c)
	cases := []struct {
		name    string
		fault   func(n int, w http.ResponseWriter, r *http.Request) bool
		retries int64
		minWait time.Duration
	}{
		{"500 then fine", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 2 {
				http.Error(w, "boom", 500)
				return true
			}
			return false
		}, 1, 0},
		{"429 with Retry-After", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 3 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return true
			}
			return false
		}, 1, time.Second},
		{"503 with Retry-After date", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 3 {
				w.Header().Set("Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))
				http.Error(w, "later", http.StatusServiceUnavailable)
				return true
			}
			return false
		}, 1, time.Second},
		{"truncated body", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 4 {
				truncate(w, r, h)
				return true
			}
			return false
		}, 1, 0},
		{"connection dropped", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 3 || n == 5 {
				// Part of the status line, then nothing: the transport
				// cannot resend this request by itself.
				hj, _ := w.(http.Hijacker)
				conn, _, _ := hj.Hijack()
				io.WriteString(conn, "HTTP/1.1 200")
				conn.Close()
				return true
			}
			return false
		}, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fh, _ := faulty(h, tc.fault)
			o := fast()
			o.PageSize = 3
			s := openFaulty(t, fh, o)
			start := time.Now()
			got, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if st := s.Stats(); st.Retries != tc.retries {
				t.Errorf("%d retries, want %d", st.Retries, tc.retries)
			}
			if el := time.Since(start); el < tc.minWait {
				t.Errorf("took %v, the server asked to wait %v", el, tc.minWait)
			}
		})
	}
}

func TestServerFailures(t *testing.T) {
	lines := syntheticLines(30)
	c := smallCluster(t, lines, 5)
	h := pywbHandler(t, c)
	cases := []struct {
		name     string
		fault    func(n int, w http.ResponseWriter, r *http.Request) bool
		opt      func(o *ServerOptions)
		attempts int
		want     string // in the error
		is       error
	}{
		{"always 503", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n > 1 {
				w.WriteHeader(503)
				io.WriteString(w, `{"message": "overloaded"}`)
				return true
			}
			return false
		}, nil, 3, "HTTP 503: overloaded (3 attempts)", nil},
		{"garbage", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n == 2 {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, "<html><body>Maintenance</body></html>\n")
				return true
			}
			return false
		}, nil, 1, "line 1 (byte 0) of the answer: malformed answer", nil},
		{"hang", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n > 1 {
				<-r.Context().Done()
				return true
			}
			return false
		}, func(o *ServerOptions) { o.Timeout = 50 * time.Millisecond }, 3, "", errStalled},
		{"hang in the body", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n > 1 {
				w.WriteHeader(200)
				io.WriteString(w, `{"urlkey": "com,example)/p0000", "timestamp": "20200101000000"}`+"\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return true
			}
			return false
		}, func(o *ServerOptions) { o.Timeout = 50 * time.Millisecond }, 3, "", errStalled},
		{"answer too large", nil, func(o *ServerOptions) { o.MaxResponseSize = 300 }, 1, "answer larger than the maximum", errTooLarge},
		{"line too long", nil, func(o *ServerOptions) { o.MaxLineSize = 50 }, 1, "more than 50 bytes", ErrLineTooLong},
		{"404", func(n int, w http.ResponseWriter, r *http.Request) bool {
			if n > 1 {
				http.NotFound(w, r)
				return true
			}
			return false
		}, nil, 1, "HTTP 404: 404 page not found", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fh := h
			if tc.fault != nil {
				fh, _ = faulty(h, tc.fault)
			}
			o := fast()
			o.Attempts = 3
			if tc.opt != nil {
				tc.opt(o)
			}
			s := openFaulty(t, fh, o)
			_, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
			var se *ServerError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want a *ServerError", err, err)
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), s.Endpoint()) {
				t.Errorf("error %q does not name the URL", err)
			}
			if se.Attempts != tc.attempts {
				t.Errorf("%d attempts, want %d", se.Attempts, tc.attempts)
			}
		})
	}
}

func TestServerRetryAfterTooLong(t *testing.T) {
	fh, _ := faulty(http.NotFoundHandler(), func(n int, w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
		return true
	})
	o := fast()
	o.MaxRetryAfter = time.Second
	s := openFaulty(t, fh, o)
	start := time.Now()
	_, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
	if err == nil || !strings.Contains(err.Error(), "asks to wait 1h0m0s") {
		t.Fatalf("err = %v, want the long Retry-After named", err)
	}
	if time.Since(start) > 500*time.Millisecond {
		t.Errorf("waited %v before giving up", time.Since(start))
	}
}

func TestServerContext(t *testing.T) {
	lines := syntheticLines(90)
	c := smallCluster(t, lines, 3)
	ts := httptest.NewServer(pywbHandler(t, c))
	defer ts.Close()
	o := fast()
	o.PageSize = 1
	o.Flavor = FlavorPywb
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := OpenServer(ctx, ts.URL+"/cdx?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 0
	var last error
	for _, err := range s.Lines(Query{Match: MatchPrefix}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 4 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", last)
	}
	// Breaking out of the loop is not an error and leaves nothing behind.
	s2, err := OpenServer(context.Background(), ts.URL+"/cdx?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	for _, err := range s2.Lines(Query{Match: MatchPrefix}) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
}

func TestServerRateLimit(t *testing.T) {
	lines := syntheticLines(30)
	c := smallCluster(t, lines, 2)
	fh, n := faulty(pywbHandler(t, c), func(int, http.ResponseWriter, *http.Request) bool { return false })
	o := fast()
	o.Rate = 20 // requests per second
	o.PageSize = 1
	s := openFaulty(t, fh, o)
	start := time.Now()
	if _, err := collectLines(t, s.Lines(Query{Match: MatchPrefix})); err != nil {
		t.Fatal(err)
	}
	// The first request goes at once; each later one waits 50 ms.
	el := time.Since(start)
	if min := time.Duration(n.Load()-2) * 50 * time.Millisecond; el < min {
		t.Errorf("%d requests in %v, faster than 20 a second (want at least %v)", n.Load(), el, min)
	}
}

// waybackHandler answers like the Internet Archive's CDX server
// (wayback-cdx-server/README.md): output=json rows after a header row,
// limit=, and with showResumeKey=true an empty row and the resume key
// ("urlkey timestamp!" URL-encoded) when the limit cut the answer;
// resumeKey= starts at the first line at or after the key. lines are CDX
// lines of the public 7 fields.
func waybackHandler(t testing.TB, lines []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		req, err := ParseRequest(q)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		qq, _ := req.Query()
		cq, _ := qq.compile()
		limit, _ := strconv.Atoi(q.Get("limit"))
		start := q.Get("resumeKey")
		var out [][]string
		more := false
		for _, l := range lines {
			if start != "" && l < start {
				continue
			}
			if cq.test([]byte(l)) != vMatch {
				continue
			}
			if limit > 0 && len(out) == limit {
				more = true
				break
			}
			out = append(out, strings.Split(l, " "))
		}
		var b bytes.Buffer
		if q.Get("output") != "json" {
			// The default output: the lines, then a blank line and the
			// resume key.
			for _, row := range out {
				b.WriteString(strings.Join(row, " ") + "\n")
			}
			if more && q.Get("showResumeKey") == "true" {
				last := out[len(out)-1]
				b.WriteString("\n" + url.QueryEscape(last[0]+" "+last[1]+"!") + "\n")
			}
			w.Write(b.Bytes())
			return
		}
		b.WriteString(`[["urlkey","timestamp","original","mimetype","statuscode","digest","length"]`)
		for _, row := range out {
			b.WriteString(",\n[")
			for i, v := range row {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q", v)
			}
			b.WriteString("]")
		}
		if more && q.Get("showResumeKey") == "true" {
			last := out[len(out)-1]
			fmt.Fprintf(&b, ",\n[],\n[%q]", url.QueryEscape(last[0]+" "+last[1]+"!"))
		}
		b.WriteString("]\n")
		w.Header().Set("Content-Type", "application/json")
		w.Write(b.Bytes())
	})
}

// iaArchiveOrg are the Internet Archive's answer lines in
// wayback-cdx-server/README.md ("Resumption Key"), and a few more after
// them in the same form.
var iaArchiveOrg = []string{
	"org,archive)/ 19970126045828 http://www.archive.org:80/ text/html 200 Q4YULN754FHV2U6Q5JUT6Q2P57WEWNNY 1415",
	"org,archive)/ 19971011050034 http://www.archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1402",
	"org,archive)/ 19971211122953 http://www.archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1405",
	"org,archive)/ 19971211122953 http://www.archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1405",
	"org,archive)/ 19980109140106 http://archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1402",
	"org,archive)/ 19980113171600 http://archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1402",
	"org,archive)/ 19980201000000 http://www.archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1405",
	"org,archive)/about 19980201000000 http://www.archive.org:80/about text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR4 1205",
}

func TestServerWaybackResumeKey(t *testing.T) {
	var log []url.Values
	h := waybackHandler(t, iaArchiveOrg)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log = append(log, r.URL.Query())
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorWayback
	o.BatchSize = 5
	s, err := OpenServer(context.Background(), ts.URL+"/search/cdx?url=archive.org/*", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(iaArchiveOrg, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if len(log) != 2 || log[1].Get("resumeKey") != "org,archive)/ 19980109140106!" {
		t.Errorf("requests %v: want a second batch from the README's resume key, decoded once", log)
	}
	// The same in the space-separated output, records and all.
	o.WaybackText = true
	st, err := OpenServer(context.Background(), ts.URL+"/search/cdx?url=archive.org/*", o)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log = nil
	var text []string
	for rec, err := range st.Records(Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Layout() != Layout7 {
			t.Errorf("layout %v", rec.Layout())
		}
		text = append(text, string(rec.Line()))
	}
	if diff := cmp.Diff(iaArchiveOrg, text); diff != "" || len(log) != 2 || log[0].Get("output") != "" {
		t.Errorf("text output, requests %v (-want +got):\n%s", log, diff)
	}
	// A limit across batches.
	got, err = collectLines(t, s.Lines(Query{Match: MatchPrefix, Limit: 7}))
	if err != nil || len(got) != 7 {
		t.Errorf("limit 7: %d lines, %v", len(got), err)
	}
	// The last capture: limit=-1 in one request.
	q, _ := QueryForURL("archive.org", MatchExact)
	q.Limit = 2
	got, err = collectLines(t, s.Lines(q))
	if err != nil || len(got) != 2 || got[0] != iaArchiveOrg[0] {
		t.Errorf("exact, limit 2: %q, %v", got, err)
	}
}

// The Internet Archive's text answer with a resume key, as its README
// shows it (a blank line, then the key), read as text.
func TestReadTextResumeKey(t *testing.T) {
	body := strings.Join(iaArchiveOrg[:5], "\n") + "\n\norg%2Carchive%29%2F+19980109140106%21\n"
	s := &Server{o: ServerOptions{MaxLineSize: 1 << 10}}
	var got []string
	var key string
	n := 0
	err := s.readText(strings.NewReader(body), &n, nil, func(l []byte, _ *Layout) error {
		got = append(got, string(l))
		return nil
	}, &key)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, iaArchiveOrg[:5]) || key != "org%2Carchive%29%2F+19980109140106%21" {
		t.Errorf("lines %q, key %q", got, key)
	}
	// OutbackCDX's note of a failure part way through is an error.
	err = s.readText(strings.NewReader(iaArchiveOrg[0]+"\n"+outbackWarning+", error occurred processing captures\n"), &n, nil,
		func([]byte, *Layout) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "output may be incomplete") {
		t.Errorf("OutbackCDX warning: err = %v", err)
	}
}

// outbackHandler answers as OutbackCDX's README ("Querying") shows: CDX11
// text, and output=json as a JSON array (with the header row of its
// JsonFormat, numbers unquoted, null for an unknown length); the
// outbackcdx-urlkey header names the key.
func outbackHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/myindex" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("outbackcdx-urlkey", "org,example)/")
		if r.URL.Query().Get("url") != "example.org" {
			w.Header().Set("Content-Type", "text/plain")
			return // nothing matches
		}
		if r.URL.Query().Get("output") == "json" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[["urlkey","timestamp","url","mime","status","digest","redirecturl","robotflags","length","offset","filename"],["org,example)/",20030402160014,"http://example.org/","text/html",200,"MOH7IEN2JAEJOHYXIEPEEGHOHG5VI===","-","-",null,396,"mycrawl.warc.gz"]]`)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "org,example)/ 20030402160014 http://example.org/ text/html 200 MOH7IEN2JAEJOHYXIEPEEGHOHG5VI=== - - 2248 396 mycrawl.warc.gz\n")
	})
}

func TestServerOutback(t *testing.T) {
	ts := httptest.NewServer(outbackHandler())
	defer ts.Close()
	s, err := OpenServer(context.Background(), ts.URL+"/myindex", fast())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Flavor() != FlavorOutback {
		t.Fatalf("flavour %v, want outbackcdx from its header", s.Flavor())
	}
	q, _ := QueryForURL("example.org", MatchExact)
	var recs []*Record
	for rec, err := range s.Records(q) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if len(recs) != 1 || recs[0].Layout() != Layout11 || string(recs[0].Digest()) != "MOH7IEN2JAEJOHYXIEPEEGHOHG5VI===" {
		t.Fatalf("records %v", recs)
	}
	if l, _ := recs[0].Length(); l != 2248 {
		t.Errorf("length %d", l)
	}
	// The JSON form of the same capture, through the row reader.
	rr := newRowReader(strings.NewReader(`[["urlkey","timestamp","url","mime","status","digest","redirecturl","robotflags","length","offset","filename"],["org,example)/",20030402160014,"http://example.org/","text/html",200,"MOH7IEN2JAEJOHYXIEPEEGHOHG5VI===","-","-",null,396,"mycrawl.warc.gz"]]`), 1<<10)
	hdr, err := rr.next()
	if err != nil {
		t.Fatal(err)
	}
	l, err := layoutForFields(hdr)
	if err != nil {
		t.Fatal(err)
	}
	row, err := rr.next()
	if err != nil {
		t.Fatal(err)
	}
	line := appendRowLine(nil, row, int(l.idx[fMIME]))
	if string(line) != "org,example)/ 20030402160014 http://example.org/ text/html 200 MOH7IEN2JAEJOHYXIEPEEGHOHG5VI=== - - - 396 mycrawl.warc.gz" {
		t.Errorf("row line %q", line)
	}
	if _, err := rr.next(); err != io.EOF {
		t.Errorf("after the last row: %v", err)
	}
	// Nothing matches: an empty text answer.
	q2, _ := QueryForURL("example.net", MatchExact)
	got, err := collectLines(t, s.Lines(q2))
	if err != nil || len(got) != 0 {
		t.Errorf("empty answer: %q, %v", got, err)
	}
}

func TestOpenServerErrors(t *testing.T) {
	cases := []struct{ url, want string }{
		{"ftp://example.org/cdx", "want an http or https URL"},
		{"http:///cdx", "want an http or https URL"},
		{"http://127.0.0.1:1/cdx?url=example.com&matchType=nope", "matchType=nope"},
		{"http://127.0.0.1:1/cdx?url=example.com&limit=x", "limit=x"},
		{"http://127.0.0.1:1/cdx", "127.0.0.1:1"},
	}
	for _, tc := range cases {
		o := fast()
		o.Attempts = 1
		_, err := OpenServer(context.Background(), tc.url, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OpenServer(%q) = %v, want an error saying %q", tc.url, err, tc.want)
		}
	}
	// An answer that names no flavour.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>hello</html>")
	}))
	defer ts.Close()
	_, err := OpenServer(context.Background(), ts.URL+"/x", fast())
	if err == nil || !strings.Contains(err.Error(), "set ServerOptions.Flavor") {
		t.Errorf("unknown server: %v", err)
	}
	// A server without a scope cannot be read whole.
	o := fast()
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/x", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = collectLines(t, s.Lines(Query{Match: MatchPrefix}))
	if !errors.Is(err, ErrNoScope) || !strings.Contains(err.Error(), "ServerOptions.Scope") || strings.Contains(err.Error(), "-url-prefix") {
		t.Errorf("whole read without scope: %v, want ErrNoScope naming ServerOptions.Scope only", err)
	}
	// With a ScopeHint the error names the hint instead of the field.
	o.ScopeHint = "-url-prefix URL or -domain HOST"
	s2, err := OpenServer(context.Background(), ts.URL+"/x", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	_, err = collectLines(t, s2.Lines(Query{Match: MatchPrefix}))
	if !errors.Is(err, ErrNoScope) || !strings.Contains(err.Error(), "-url-prefix URL or -domain HOST") || strings.Contains(err.Error(), "ServerOptions") {
		t.Errorf("whole read without scope, with a hint: %v, want ErrNoScope naming the hint only", err)
	}
}

func TestURLForKey(t *testing.T) {
	cases := []struct {
		key  string
		m    MatchType
		want string
		err  bool
	}{
		{"com,example)/", MatchExact, "example.com", false},
		{"com,example)/a/b?c=d", MatchExact, "example.com/a/b?c=d", false},
		{"com,example)/a/", MatchPrefix, "example.com/a/", false},
		{"com,example:8080)/x", MatchExact, "example.com:8080/x", false},
		{"uk,co,example)/", MatchHost, "example.co.uk", false},
		{"com,example", MatchDomain, "example.com", false},
		{"4,3,2,1)/a", MatchExact, "1.2.3.4/a", false},
		{"com,example,www)/", MatchExact, "", true}, // the default profile drops www
		{"com,exa", MatchPrefix, "", true},
		{"", MatchPrefix, "", true},
	}
	for _, tc := range cases {
		got, err := urlForKey(tc.key, tc.m)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("urlForKey(%q, %v) = %q, %v; want %q (error %v)", tc.key, tc.m, got, err, tc.want, tc.err)
		}
	}
}

// TestTranslateFilter: filters go to the Internet Archive's server and to
// OutbackCDX in their syntax (a regular expression that must match the
// whole field, Java's Matcher.matches; OutbackCDX's "~" for a substring),
// with the same meaning as pywb's.
func TestTranslateFilter(t *testing.T) {
	values := []string{"text/html", "text/html; charset=utf-8", "application/xhtml+xml", "warc/revisit", ""}
	for _, spec := range []string{"mime:html", "!mime:html", "=mime:text/html", "!=mime:text/html", "~mime:text/", "!~mime:.*/x", "mime:+x", "=mime:"} {
		f := mustFilter(t, spec)
		for _, fl := range []Flavor{FlavorWayback, FlavorOutback} {
			got := translateFilter(f, fl, "mimetype")
			neg := strings.HasPrefix(strings.TrimPrefix(got, "~"), "!")
			body := got[strings.IndexByte(got, ':')+1:]
			for _, v := range values {
				var match bool
				if strings.HasPrefix(got, "~") {
					match = strings.Contains(v, body)
				} else {
					match = regexp.MustCompile("^(?:" + body + ")$").MatchString(v)
				}
				rec, _ := ParseLine([]byte(`com,x)/ 20200101000000 {"mime": "`+v+`"}`), nil)
				if want := f.Match(rec); match != neg != want {
					t.Errorf("%s as %v filter %q on %q: %v, pywb's filter says %v", spec, fl, got, v, match != neg, want)
				}
			}
		}
	}
	// The field names of the other dialects.
	s := &Server{flavor: FlavorWayback}
	v := s.values(parseReq(t, "url=x&filter=status:200&collapse=url&fl=urlkey,url,mime"))
	if v.Get("filter") != "statuscode:.*200.*" || v.Get("collapse") != "original" || v.Get("fl") != "urlkey,original,mimetype" {
		t.Errorf("wayback parameters %v", v)
	}
	s.flavor = FlavorOutback
	v = s.values(parseReq(t, "url=x&filter=!redirect:http&collapse=timestamp:8"))
	if v.Get("filter") != "~!redirecturl:http" || v.Get("collapse") != "timestamp:8" {
		t.Errorf("outback parameters %v", v)
	}
}

// TestServerOutbackBounds: OutbackCDX refuses from= and to= but for exact
// matches (its Query.validate); for a domain the client sends neither and
// applies them to the lines itself, the limit counting the lines kept.
func TestServerOutbackBounds(t *testing.T) {
	var got url.Values
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Query()
		w.Header().Set("outbackcdx-urlkey", "org,example)/")
		if got.Get("from") != "" && got.Get("matchType") == "domain" {
			http.Error(w, "from={timestamp} and to={timestamp} are currently only implemented for exact matches", 500)
			return
		}
		for _, ts := range []string{"20010101000000", "20050101000000", "20060101000000", "20090101000000"} {
			fmt.Fprintf(w, "org,example)/ %s http://example.org/ text/html 200 D - - 10 1 f.warc.gz\n", ts)
		}
	}))
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorOutback
	s, err := OpenServer(context.Background(), ts.URL+"/myindex", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines, err := collectLines(t, s.Fetch(context.Background(), &Request{URL: "example.org", Match: MatchDomain, From: "2004", To: "2008", Limit: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], " 20050101000000 ") || got.Get("from") != "" || got.Get("limit") != "" {
		t.Errorf("lines %q after asking %v", lines, got)
	}
	_, err = collectLines(t, s.Fetch(context.Background(), &Request{URL: "example.org", Match: MatchDomain, Sort: SortReverse}))
	if !errors.Is(err, ErrQuery) {
		t.Errorf("reverse over a domain: %v", err)
	}
}

// A 400 to one request's page count (a parameter the server refuses) is
// that request's error, and later requests still page.
func TestServerPageCountRefusedOnce(t *testing.T) {
	c := smallCluster(t, syntheticLines(60), 5)
	var pages atomic.Int32
	h := pywbHandler(t, c)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") != "" {
			pages.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorPywb
	s, err := OpenServer(context.Background(), ts.URL+"/cdx?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := &Request{URL: "example.com", Match: MatchDomain, Filters: []Filter{{Op: FilterRegexp, Field: "mime", Value: "("}}}
	_, err = collectLines(t, s.Fetch(context.Background(), bad))
	var se *ServerError
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(se.Message, "missing closing )") {
		t.Fatalf("bad request: %v", err)
	}
	got, err := collectLines(t, s.Lines(Query{}))
	if err != nil || len(got) != 40 || pages.Load() == 0 {
		t.Errorf("after a refused request: %d lines, %d paged requests, %v", len(got), pages.Load(), err)
	}
}

// TestServerRowWithoutEnd: a JSON answer whose row holds a string far
// longer than ServerOptions.MaxLineSize fails with ErrLineTooLong once the
// row's bytes are read. Before the fix, the decoder buffered the whole
// string first: a hostile server's one endless value grew the reader's
// memory until ServerOptions.MaxResponseSize (1 GiB, 3 GB resident for
// `cdxj -cdx-flavor wayback`), here the server's 48 MiB.
func TestServerRowWithoutEnd(t *testing.T) {
	var written atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n, _ := io.WriteString(w, `[["urlkey","timestamp","original"],["com,example)/","20200101000000","http://example.com/`)
		written.Add(int64(n))
		chunk := strings.Repeat("a", 64<<10)
		for range 48 << 4 { // 48 MiB of one string
			n, err := io.WriteString(w, chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		io.WriteString(w, `"]]`)
	}))
	defer ts.Close()
	o := fast()
	o.Flavor = FlavorWayback
	o.Attempts = 1
	o.MaxLineSize = 64 << 10
	s, err := OpenServer(context.Background(), ts.URL+"/cdx?url=example.com/*", o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = collectLines(t, s.Lines(Query{Match: MatchPrefix}))
	s.Close()
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "row 2 of the answer") {
		t.Fatalf("err = %v, want ErrLineTooLong naming row 2", err)
	}
	ts.Close() // waits for the handler, which stops at the broken connection
	// What the server wrote: the rows the client read, 64 KiB of slack and
	// what the loopback connection's buffers hold, far from 48 MiB.
	if n := written.Load(); n > 16<<20 {
		t.Errorf("the server wrote %d bytes before the client stopped reading", n)
	}
}

// TestServerDeadline: a server that answers, even with errors and slowly,
// gets a new deadline per answer and fails by Attempts, not by
// ServerOptions.Deadline (one that never answers:
// TestServerNeverAnswers).
func TestServerDeadline(t *testing.T) {
	t.Run("answers slowly", func(t *testing.T) {
		fh, n := faulty(http.NotFoundHandler(), func(n int, w http.ResponseWriter, r *http.Request) bool {
			time.Sleep(200 * time.Millisecond)
			w.WriteHeader(503)
			io.WriteString(w, `{"message": "overloaded"}`)
			return true
		})
		o := fast()
		o.Timeout, o.Deadline, o.Attempts = 5*time.Second, 500*time.Millisecond, 4
		s := openFaulty(t, fh, o)
		_, err := collectLines(t, s.Lines(Query{Match: MatchPrefix}))
		var se *ServerError
		if !errors.As(err, &se) || se.Status != 503 || se.Attempts != 4 || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want HTTP 503 after 4 attempts, not the deadline", err)
		}
		if n.Load() != 4 {
			t.Errorf("%d requests, want 4", n.Load())
		}
	})
}

// TestServerSmallAnswerWithinDeadline: a server that sends the headers of
// a small answer (the flavour probe, a page count, an error's message) and
// then drips its body a byte at a time, each byte within Timeout, fails
// the request within the Deadline, not after 64 KiB of drips.
func TestServerSmallAnswerWithinDeadline(t *testing.T) {
	drip := func(status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			for i := 0; i < 1000; i++ {
				if _, err := io.WriteString(w, " "); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		})
	}
	for _, tc := range []struct {
		name   string
		status int
		flavor Flavor
	}{
		{"probe", http.StatusOK, FlavorAuto},
		{"page count", http.StatusOK, FlavorPywb},
		{"error message", http.StatusServiceUnavailable, FlavorPywb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(drip(tc.status))
			defer ts.Close()
			o := fast()
			o.Flavor = tc.flavor
			o.Timeout, o.Deadline, o.Attempts = time.Second, 400*time.Millisecond, 1
			start := time.Now()
			s, err := OpenServer(context.Background(), ts.URL+"/cdx?url=*.example.com", o)
			if err == nil {
				defer s.Close()
				_, err = collectLines(t, s.Lines(Query{Match: MatchPrefix}))
			}
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error from a server that drips its answer")
			}
			if !strings.Contains(err.Error(), ts.URL) {
				t.Errorf("error %q does not name the server %s", err, ts.URL)
			}
			// 1,000 drips of 50 ms are 50 s; the Deadline is 400 ms.
			if took > 10*time.Second {
				t.Errorf("failed after %v, want about the 400ms deadline: %v", took, err)
			}
		})
	}
}
