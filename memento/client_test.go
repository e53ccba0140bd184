package memento

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/timestamp"
)

// archive is a fake Memento archive on 127.0.0.1: routes map a path to a
// handler; "{base}" in bodies and headers becomes the server's URL. It
// counts requests per path and records methods and Accept-Datetime values.
type archive struct {
	*httptest.Server
	mu     sync.Mutex
	hits   map[string]int
	log    []string // "METHOD path Accept-Datetime"
	routes map[string]http.HandlerFunc
}

func newArchive(t *testing.T, routes map[string]http.HandlerFunc) *archive {
	t.Helper()
	a := &archive{hits: map[string]int{}, routes: routes}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.RequestURI()
		a.mu.Lock()
		a.hits[p]++
		a.log = append(a.log, r.Method+" "+p+" "+r.Header.Get("Accept-Datetime"))
		a.mu.Unlock()
		h, ok := routes[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *archive) hitsOf(p string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[p]
}

func (a *archive) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.log...)
}

// serve answers with status, headers ("{base}" expanded) and body.
func serve(status int, body string, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Add(hdr[i], strings.ReplaceAll(hdr[i+1], "{base}", base))
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", MediaTypeLinkFormat)
		}
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			fmt.Fprint(w, strings.ReplaceAll(body, "{base}", base))
		}
	}
}

// stall waits until the client gives up (or 5 s, so the server can close).
func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

func mementoLines(base string, ts ...string) string {
	var b strings.Builder
	for _, s := range ts {
		t, _ := timestamp.Parse(s)
		fmt.Fprintf(&b, "<%s/web/%s/http://example.com/>; rel=\"memento\"; datetime=\"%s\",\n", base, s, FormatHTTPDate(t))
	}
	return b.String()
}

func timestamps(tm *TimeMap) []string {
	var out []string
	for _, m := range tm.Mementos {
		out = append(out, timestamp.Format(m.Datetime))
	}
	return out
}

// wantErr checks that err is a *Error with op, the given cause and the
// given NotFound answer.
func wantErr(t *testing.T, err error, op string, cause error, notFound bool) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *memento.Error", err, err)
	}
	if e.Op != op {
		t.Errorf("Op = %q, want %q", e.Op, op)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("err = %v, want cause %v", err, cause)
	}
	if IsNotFound(err) != notFound || e.NotFound() != notFound {
		t.Errorf("IsNotFound = %v, want %v (%v)", IsNotFound(err), notFound, err)
	}
	return e
}

func TestFetchTimeMap(t *testing.T) {
	ctx := context.Background()
	body := transcriptBody(t, "TimeMap, link format (URI-R in 3 of 3 archives")

	t.Run("single page", func(t *testing.T) {
		a := newArchive(t, map[string]http.HandlerFunc{"/timemap/link/http://example.com/": serve(200, body)})
		tm, err := (&Client{}).FetchTimeMap(ctx, a.URL+"/timemap/link/http://example.com/")
		if err != nil {
			t.Fatal(err)
		}
		if len(tm.Mementos) != 8 || tm.Original != "http://example.com/" {
			t.Errorf("%d mementos, original %q", len(tm.Mementos), tm.Original)
		}
		// Its json and cdxj rel="timemap" links are other formats, and the
		// link one is itself (self): nothing else is fetched.
		if n := len(a.requests()); n != 1 {
			t.Errorf("%d requests: %v", n, a.requests())
		}
	})

	t.Run("pages linking to each other", func(t *testing.T) {
		p1 := `<http://example.com/>; rel="original",
<{base}/tm/1>; rel="self"; type="application/link-format"; from="Sat, 01 Jan 2000 00:00:00 GMT",
<{base}/tm/2>; rel="timemap"; type="application/link-format"; from="Mon, 01 Jan 2001 00:00:00 GMT",
<{base}/tm/3>; rel="timemap"; from="Tue, 01 Jan 2002 00:00:00 GMT",
` + mementoLines("{base}", "20000101000000", "20000601000000")
		p2 := `<http://example.com/>; rel="original", <{base}/tm/1>; rel="timemap", <{base}/tm/2>; rel="self", <{base}/tm/3#frag>; rel="timemap",
` + mementoLines("{base}", "20010101000000", "20000601000000")
		p3 := `<{base}/tm/3>; rel="timemap self", <tm/2>; rel="timemap", ` + mementoLines("{base}", "20020101000000")
		a := newArchive(t, map[string]http.HandlerFunc{
			"/tm/1": serve(200, p1), "/tm/2": serve(200, p2), "/tm/3": serve(200, strings.TrimSuffix(p3, ",\n")),
		})
		tm, err := (&Client{}).FetchTimeMap(ctx, a.URL+"/tm/1")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"20000101000000", "20000601000000", "20010101000000", "20020101000000"}
		if diff := cmp.Diff(want, timestamps(tm)); diff != "" {
			t.Errorf("mementos:\n%s", diff)
		}
		if tm.Duplicates != 1 {
			t.Errorf("Duplicates = %d, want 1 (20000601 on two pages)", tm.Duplicates)
		}
		for _, p := range []string{"/tm/1", "/tm/2", "/tm/3"} {
			if n := a.hitsOf(p); n != 1 {
				t.Errorf("%s fetched %d times", p, n)
			}
		}
		if tm.Self.URI != a.URL+"/tm/1" || len(tm.Pages) != 2 {
			t.Errorf("self %q, pages %v: want the first document's", tm.Self.URI, tm.Pages)
		}
	})

	t.Run("page cap", func(t *testing.T) {
		routes := map[string]http.HandlerFunc{}
		for i := range 10 {
			routes[fmt.Sprintf("/chain/%d", i)] = serve(200, fmt.Sprintf("<{base}/chain/%d>; rel=\"timemap\",\n", i+1)+
				strings.TrimSuffix(mementoLines("{base}", fmt.Sprintf("20%02d", i)), ",\n"))
		}
		a := newArchive(t, routes)
		tm, err := (&Client{MaxPages: 3}).FetchTimeMap(ctx, a.URL+"/chain/0")
		wantErr(t, err, "timemap", ErrTooManyPages, false)
		if tm == nil || len(tm.Mementos) != 3 {
			t.Fatalf("partial TimeMap %v, want the 3 pages read", tm)
		}
		if a.hitsOf("/chain/3") != 0 {
			t.Error("fetched past the cap")
		}
	})

	t.Run("index with a missing and a failing child", func(t *testing.T) {
		index := `<http://example.com/>;rel="original",
 <{base}/a1>;rel="timemap"; type="application/link-format",
 <{base}/gone>;rel="timemap"; type="application/link-format",
 <{base}/timemap/json/x>;rel="timemap"; type="application/json"
`
		a := newArchive(t, map[string]http.HandlerFunc{
			"/index": serve(200, index),
			"/a1":    serve(200, mementoLines("{base}", "2001", "2002")),
			"/gone":  serve(404, "not here"),
		})
		tm, err := (&Client{}).FetchTimeMap(ctx, a.URL+"/index")
		if err != nil {
			t.Fatal(err)
		}
		if len(tm.Mementos) != 2 || a.hitsOf("/timemap/json/x") != 0 {
			t.Errorf("%d mementos; json page fetched %d times", len(tm.Mementos), a.hitsOf("/timemap/json/x"))
		}

		a.routes["/gone"] = serve(503, "busy")
		tm, err = (&Client{}).FetchTimeMap(ctx, a.URL+"/index")
		e := wantErr(t, err, "timemap", ErrStatus, false)
		if e.StatusCode != 503 || tm == nil || len(tm.Mementos) != 2 {
			t.Errorf("status %d, partial %v", e.StatusCode, tm)
		}
	})

	t.Run("404 is not found, everything else a failure", func(t *testing.T) {
		a := newArchive(t, map[string]http.HandlerFunc{
			"/410":   serve(410, ""),
			"/500":   serve(500, "oops"),
			"/html":  serve(200, "<html><body>Wayback has not archived that URL.</body></html>", "Content-Type", "text/html; charset=utf-8"),
			"/bad":   serve(200, `<sfafafasfasfafafafafaf, rel='ssss'`),
			"/reset": func(w http.ResponseWriter, r *http.Request) { c, _, _ := w.(http.Hijacker).Hijack(); c.Close() },
		})
		c := &Client{}
		tm, err := c.FetchTimeMap(ctx, a.URL+"/404")
		if e := wantErr(t, err, "timemap", ErrNotFound, true); e.StatusCode != 404 || tm != nil {
			t.Errorf("status %d tm %v", e.StatusCode, tm)
		}
		_, err = c.FetchTimeMap(ctx, a.URL+"/410")
		wantErr(t, err, "timemap", ErrNotFound, true)
		_, err = c.FetchTimeMap(ctx, a.URL+"/500")
		wantErr(t, err, "timemap", ErrStatus, false)
		_, err = c.FetchTimeMap(ctx, a.URL+"/html")
		wantErr(t, err, "timemap", ErrNotTimeMap, false)
		_, err = c.FetchTimeMap(ctx, a.URL+"/bad")
		var pe *ParseError
		if wantErr(t, err, "timemap", ErrUnterminatedTarget, false); !errors.As(err, &pe) || pe.Offset != 0 {
			t.Errorf("want a ParseError at byte 0, got %v", err)
		}
		_, err = c.FetchTimeMap(ctx, a.URL+"/reset")
		wantErr(t, err, "timemap", nil, false)
	})

	t.Run("slow archive", func(t *testing.T) {
		a := newArchive(t, map[string]http.HandlerFunc{
			"/slow": stall,
			"/trickle": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", MediaTypeLinkFormat)
				fmt.Fprint(w, mementoLines("http://a.example", "2001", "2002"))
				w.(http.Flusher).Flush()
				stall(w, r)
			},
		})
		c := &Client{Timeout: 150 * time.Millisecond}
		for _, p := range []string{"/slow", "/trickle"} {
			start := time.Now()
			tm, err := c.FetchTimeMap(ctx, a.URL+p)
			if e := wantErr(t, err, "timemap", nil, false); !e.Timeout() {
				t.Errorf("%s: Timeout() = false for %v", p, err)
			}
			if tm != nil {
				t.Errorf("%s: a timed-out first page gave a TimeMap", p)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s: took %v", p, d)
			}
		}
		// The caller's own deadline counts too.
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := (&Client{}).FetchTimeMap(cctx, a.URL+"/slow")
		if e := wantErr(t, err, "timemap", context.DeadlineExceeded, false); !e.Timeout() {
			t.Errorf("Timeout() = false")
		}
	})

	t.Run("huge archive", func(t *testing.T) {
		a := newArchive(t, map[string]http.HandlerFunc{
			"/endless": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", MediaTypeLinkFormat)
				line := mementoLines("http://a.example", "20010101000000")
				for i := 0; i < 1<<20 && r.Context().Err() == nil; i++ {
					if _, err := fmt.Fprint(w, line); err != nil {
						return
					}
				}
			},
			"/declared": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "100000000")
				w.WriteHeader(200)
			},
		})
		c := &Client{MaxBodyBytes: 64 << 10}
		tm, err := c.FetchTimeMap(ctx, a.URL+"/endless")
		wantErr(t, err, "timemap", ErrBodyTooLarge, false)
		if tm != nil {
			t.Error("an over-size body gave a TimeMap")
		}
		_, err = c.FetchTimeMap(ctx, a.URL+"/declared")
		wantErr(t, err, "timemap", ErrBodyTooLarge, false)
	})

	t.Run("redirects", func(t *testing.T) {
		routes := map[string]http.HandlerFunc{
			"/old":    serve(301, "", "Location", "/new/"),
			"/new/":   serve(200, `<http://example.com/>; rel="original", <20010101000000/http://example.com/>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`),
			"/loop/a": serve(302, "", "Location", "{base}/loop/b"),
			"/loop/b": serve(302, "", "Location", "/loop/a"),
		}
		for i := range 20 {
			routes[fmt.Sprintf("/hop/%d", i)] = serve(302, "", "Location", fmt.Sprintf("/hop/%d", i+1))
		}
		a := newArchive(t, routes)
		tm, err := (&Client{}).FetchTimeMap(ctx, a.URL+"/old")
		if err != nil {
			t.Fatal(err)
		}
		// Relative targets resolve against the final URL.
		if got := tm.Mementos[0].URIM; got != a.URL+"/new/20010101000000/http://example.com/" {
			t.Errorf("URI-M %q", got)
		}
		_, err = (&Client{MaxRedirects: -1}).FetchTimeMap(ctx, a.URL+"/old")
		wantErr(t, err, "timemap", ErrTooManyRedirects, false)
		_, err = (&Client{}).FetchTimeMap(ctx, a.URL+"/loop/a")
		wantErr(t, err, "timemap", ErrRedirectLoop, false)
		_, err = (&Client{MaxRedirects: 3}).FetchTimeMap(ctx, a.URL+"/hop/0")
		wantErr(t, err, "timemap", ErrTooManyRedirects, false)
		if a.hitsOf("/hop/5") != 0 {
			t.Error("followed more than MaxRedirects")
		}
	})
}

// ia302 is the Internet Archive TimeGate answer of case 02 (py-memento-client
// issue #2), served from the fake archive.
const ia302Link = `<http://www.lanl.gov>; rel="original", <{base}/web/timemap/link/http://www.lanl.gov>; rel="timemap"; type="application/link-format", <{base}/web/19961221031231/http://www.lanl.gov>; rel="first memento"; datetime="Sat, 21 Dec 1996 03:12:31 GMT", <{base}/web/20030219210359/http://www.lanl.gov>; rel="prev memento"; datetime="Wed, 19 Feb 2003 21:03:59 GMT", <{base}/web/20030320195439/http://www.lanl.gov>; rel="memento"; datetime="Thu, 20 Mar 2003 19:54:39 GMT", <{base}/web/20030323014913/http://www.lanl.gov>; rel="next memento"; datetime="Sun, 23 Mar 2003 01:49:13 GMT", <{base}/web/20150926154207/http://www.lanl.gov>; rel="last memento"; datetime="Sat, 26 Sep 2015 15:42:07 GMT"`

func TestTimeGate(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2003, 3, 20, 19, 54, 39, 0, time.UTC)
	tg := func(status int) http.HandlerFunc {
		return serve(status, "", "Location", "/web/20030320195439/http://www.lanl.gov", "Vary", "negotiate, accept-datetime", "Link", ia302Link)
	}
	a := newArchive(t, map[string]http.HandlerFunc{
		"/tg302/http://www.lanl.gov": tg(302),
		"/tg303/http://www.lanl.gov": tg(303),
		"/tg307/http://www.lanl.gov": tg(307),
		"/tg200/http://www.lanl.gov": serve(200, "<html>memento</html>", "Vary", "Accept-Datetime", "Memento-Datetime", "Thu, 20 Mar 2003 19:54:39 GMT",
			"Content-Location", "/web/20030320195439/http://www.lanl.gov", "Link", `<http://www.lanl.gov>; rel="original"`),
		"/tg23/http://www.lanl.gov": serve(200, "", "Vary", "accept-datetime", "Memento-Datetime", "Thu, 20 Mar 2003 19:54:39 GMT"),
		"/headless/x": func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			tg(302)(w, r)
		},
		"/moved/x":      serve(301, "", "Location", "/headless/x"),
		"/loop/x":       serve(302, "", "Location", "/loop/y"),
		"/loop/y":       serve(307, "", "Location", "/loop/x"),
		"/none/x":       serve(404, "", "Link", `<http://x>; rel="original"`),
		"/406/x":        serve(406, ""),
		"/400/x":        serve(400, "Malformed Accept-Datetime"),
		"/503/x":        serve(503, ""),
		"/noloc/x":      serve(302, "", "Vary", "accept-datetime"),
		"/nomd/x":       serve(200, "<html>the live page</html>"),
		"/badlink/x":    serve(302, "", "Location", "/m", "Vary", "accept-datetime", "Link", `<sfafafasfasfafafafafaf, rel='ssss'`),
		"/slow/x":       stall,
		"/scheme-rel/x": serve(302, "", "Location", "//example.org/web/1/x", "Vary", "accept-datetime"),
	})
	c := &Client{}
	for _, code := range []int{302, 303, 307} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			res, err := c.TimeGate(ctx, fmt.Sprintf("%s/tg%d/http://www.lanl.gov", a.URL, code), at)
			if err != nil {
				t.Fatal(err)
			}
			want := &TimeGateResult{
				URIM: a.URL + "/web/20030320195439/http://www.lanl.gov", Datetime: at, StatusCode: code, Vary: true,
				URIG: fmt.Sprintf("%s/tg%d/http://www.lanl.gov", a.URL, code), Original: "http://www.lanl.gov",
				TimeMapURI: a.URL + "/web/timemap/link/http://www.lanl.gov",
			}
			if diff := cmp.Diff(want, res, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Links" }, cmp.Ignore())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(res.Links) != 7 || res.TimeMap().Len() != 5 {
				t.Errorf("%d links, %d mementos in the header", len(res.Links), res.TimeMap().Len())
			}
		})
	}
	reqs := a.requests()
	if len(reqs) == 0 || reqs[0] != "HEAD /tg302/http://www.lanl.gov Thu, 20 Mar 2003 19:54:39 GMT" {
		t.Errorf("first request %q, want a HEAD with Accept-Datetime", reqs[0])
	}

	t.Run("200 with Content-Location", func(t *testing.T) {
		res, err := c.TimeGate(ctx, a.URL+"/tg200/http://www.lanl.gov", at)
		if err != nil {
			t.Fatal(err)
		}
		if res.URIM != a.URL+"/web/20030320195439/http://www.lanl.gov" || !res.Datetime.Equal(at) || res.StatusCode != 200 || !res.Vary {
			t.Errorf("%+v", res)
		}
	})
	t.Run("200, TimeGate is the memento", func(t *testing.T) {
		res, err := c.TimeGate(ctx, a.URL+"/tg23/http://www.lanl.gov", at)
		if err != nil || res.URIM != a.URL+"/tg23/http://www.lanl.gov" {
			t.Errorf("%+v %v", res, err)
		}
	})
	t.Run("HEAD refused, GET used, after a plain redirect", func(t *testing.T) {
		res, err := c.TimeGate(ctx, a.URL+"/moved/x", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if res.URIG != a.URL+"/headless/x" || res.StatusCode != 302 {
			t.Errorf("URIG %q status %d", res.URIG, res.StatusCode)
		}
		var got []string
		for _, r := range a.requests() {
			if strings.Contains(r, "/moved/") || strings.Contains(r, "/headless/") {
				got = append(got, r)
			}
		}
		// A zero datetime sends no Accept-Datetime.
		want := []string{"HEAD /moved/x ", "HEAD /headless/x ", "GET /headless/x "}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("requests:\n%s", diff)
		}
	})
	t.Run("scheme-relative Location", func(t *testing.T) {
		res, err := c.TimeGate(ctx, a.URL+"/scheme-rel/x", at)
		if err != nil || res.URIM != "http://example.org/web/1/x" {
			t.Errorf("%+v %v", res, err)
		}
	})
	for _, tc := range []struct {
		path     string
		cause    error
		notFound bool
		status   int
	}{
		{"/none/x", ErrNotFound, true, 404},
		{"/406/x", ErrNotFound, true, 406},
		{"/400/x", ErrStatus, false, 400},
		{"/503/x", ErrStatus, false, 503},
		{"/noloc/x", ErrNotTimeGate, false, 302},
		{"/nomd/x", ErrNotTimeGate, false, 200},
		{"/badlink/x", ErrUnterminatedTarget, false, 302},
		{"/loop/x", ErrRedirectLoop, false, 307},
	} {
		t.Run(strings.Trim(tc.path, "/x"), func(t *testing.T) {
			_, err := c.TimeGate(ctx, a.URL+tc.path, at)
			if e := wantErr(t, err, "timegate", tc.cause, tc.notFound); e.StatusCode != tc.status {
				t.Errorf("StatusCode %d, want %d", e.StatusCode, tc.status)
			}
			if tc.path == "/badlink/x" && !errors.Is(err, ErrNotTimeGate) {
				t.Errorf("bad Link header: %v, want ErrNotTimeGate too", err)
			}
		})
	}
	t.Run("slow", func(t *testing.T) {
		start := time.Now()
		_, err := (&Client{Timeout: 100 * time.Millisecond}).TimeGate(ctx, a.URL+"/slow/x", at)
		if e := wantErr(t, err, "timegate", nil, false); !e.Timeout() || time.Since(start) > 3*time.Second {
			t.Errorf("Timeout() %v after %v", e.Timeout(), time.Since(start))
		}
	})
}

func TestMementoHeaders(t *testing.T) {
	ctx := context.Background()
	md := "Thu, 20 Mar 2003 19:54:39 GMT"
	links := `<http://www.lanl.gov>; rel="original", <{base}/tg/http://www.lanl.gov>; rel="timegate", <{base}/tm/http://www.lanl.gov>; rel="timemap"; type="application/link-format"`
	a := newArchive(t, map[string]http.HandlerFunc{
		"/web/20030320195439/http://www.lanl.gov": serve(200, "<html>", "Memento-Datetime", md, "Link", links),
		"/web/2003/http://www.lanl.gov":           serve(302, "", "Location", "/web/20030320195439/http://www.lanl.gov"),
		"/web/captured-redirect":                  serve(302, "", "Location", "/elsewhere", "Memento-Datetime", md, "Link", links),
		"/web/tg-like":                            serve(302, "", "Location", "/web/20030320195439/http://www.lanl.gov", "Memento-Datetime", "Sat, 01 Jan 2000 00:00:00 GMT", "Vary", "accept-datetime"),
		"/live":                                   serve(200, "<html>"),
		"/baddate":                                serve(200, "<html>", "Memento-Datetime", "2003-03-20"),
	})
	c := &Client{}
	want := &MementoInfo{
		URIM: a.URL + "/web/20030320195439/http://www.lanl.gov", Datetime: time.Date(2003, 3, 20, 19, 54, 39, 0, time.UTC), StatusCode: 200,
		Original: "http://www.lanl.gov", TimeGate: a.URL + "/tg/http://www.lanl.gov", TimeMapURI: a.URL + "/tm/http://www.lanl.gov",
	}
	ignoreLinks := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Links" }, cmp.Ignore())
	for _, p := range []string{"/web/20030320195439/http://www.lanl.gov", "/web/2003/http://www.lanl.gov", "/web/tg-like"} {
		info, err := c.Memento(ctx, a.URL+p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if diff := cmp.Diff(want, info, ignoreLinks); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
	// A captured redirect is a memento itself (RFC 7089 §4.5.4).
	info, err := c.Memento(ctx, a.URL+"/web/captured-redirect")
	if err != nil || info.StatusCode != 302 || info.URIM != a.URL+"/web/captured-redirect" || a.hitsOf("/elsewhere") != 0 {
		t.Errorf("%+v %v", info, err)
	}
	_, err = c.Memento(ctx, a.URL+"/live")
	wantErr(t, err, "memento", ErrNotMemento, false)
	_, err = c.Memento(ctx, a.URL+"/baddate")
	wantErr(t, err, "memento", ErrHTTPDate, false)
	_, err = c.Memento(ctx, a.URL+"/missing")
	wantErr(t, err, "memento", ErrNotFound, true)
}
