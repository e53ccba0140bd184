package memento

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTimeGateRefusesNonHTTPLocation: a TimeGate answering with a redirect
// to "javascript:", "ftp:" or "file:" must not hand that URI on as a URI-M
// (an aggregator would render it as a link). Before the fix the
// javascript: Location of a TimeGate answer came back as URIM, a plain
// 302 without Location was not reported as ErrNotTimeGate, and a TimeGate
// answer whose Location was the TimeGate itself came back as its URI-M.
func TestTimeGateRefusesNonHTTPLocation(t *testing.T) {
	ctx := context.Background()
	a := newArchive(t, map[string]http.HandlerFunc{
		"/js":        serve(302, "", "Location", "javascript:alert(1)", "Vary", "accept-datetime"),
		"/file":      serve(307, "", "Location", "file:///etc/passwd", "Vary", "accept-datetime"),
		"/ftp-plain": serve(301, "", "Location", "ftp://example.org/x"),
		"/noloc":     serve(302, ""),
		"/ok":        serve(302, "", "Location", "HTTPS://example.org/web/1/x", "Vary", "accept-datetime"),
		"/self":      serve(302, "", "Location", "/self", "Vary", "accept-datetime"),
		"/self-frag": serve(307, "", "Location", "{base}/self-frag#m", "Vary", "accept-datetime"),
	})
	c := &Client{Timeout: 5 * time.Second}
	tests := []struct {
		name, path string
		wantURIM   string // "" when an error is expected
	}{
		{"javascript Location of a TimeGate answer", "/js", ""},
		{"file Location of a TimeGate answer", "/file", ""},
		{"plain redirect to ftp", "/ftp-plain", ""},
		{"302 without Location and without Vary", "/noloc", ""},
		{"TimeGate answer pointing to itself", "/self", ""},
		{"TimeGate answer pointing to itself with a fragment", "/self-frag", ""},
		{"upper-case https scheme accepted", "/ok", "https://example.org/web/1/x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.TimeGate(ctx, a.URL+tc.path, time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC))
			if tc.wantURIM == "" {
				if err == nil {
					t.Fatalf("TimeGate gave URIM %q, want an error", res.URIM)
				}
				wantErr(t, err, "timegate", ErrNotTimeGate, false)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.URIM != tc.wantURIM {
				t.Errorf("URIM = %q, want %q", res.URIM, tc.wantURIM)
			}
		})
	}
	// Memento follows plain redirects; one to a non-HTTP URI is an error
	// naming the scheme problem, not a transport failure on "javascript:".
	_, err := c.Memento(ctx, a.URL+"/js")
	wantErr(t, err, "memento", errBadScheme, false)
}

// TestFetchTimeMapSkipsNonHTTPPages: a rel="timemap" link to an "ftp:",
// "urn:" or "mailto:" URI is not a page that can be fetched; before the fix
// it made FetchTimeMap fail (returning a partial TimeMap and an error)
// although every memento had been read.
func TestFetchTimeMapSkipsNonHTTPPages(t *testing.T) {
	body := `<http://example.com/>; rel="original",
<ftp://archive.example/tm/1>; rel="timemap",
<urn:x-archive:tm:2>; rel="timemap",
<mailto:webmaster@archive.example>; rel="timemap",
<{base}/page2>; rel="timemap",
` + "<{base}/web/20100101000000/http://example.com/>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\""
	page2 := `<http://example.com/>; rel="original",
<{base}/page1>; rel="timemap",
<{base}/web/20110101000000/http://example.com/>; rel="memento"; datetime="Sat, 01 Jan 2011 00:00:00 GMT"`
	a := newArchive(t, map[string]http.HandlerFunc{
		"/page1": serve(200, body),
		"/page2": serve(200, page2),
	})
	tm, err := (&Client{Timeout: 5 * time.Second}).FetchTimeMap(context.Background(), a.URL+"/page1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"20100101000000", "20110101000000"}, timestamps(tm)); diff != "" {
		t.Errorf("mementos (-want +got):\n%s", diff)
	}
	if got := a.hitsOf("/page1") + a.hitsOf("/page2"); got != 2 {
		t.Errorf("%d page requests, want 2", got)
	}
}

// TestFetchTimeMapRefusesHTMLUnderAnotherType: an archive's error or
// soft-404 page served as text/plain or application/link-format parsed
// leniently as a few links without rels, and FetchTimeMap returned an empty
// TimeMap without error, which an aggregator would cache as "no mementos".
func TestFetchTimeMapRefusesHTMLUnderAnotherType(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{
		"/plain":    serve(200, "<html><body><h1>Service unavailable</h1></body></html>", "Content-Type", "text/plain"),
		"/linkfmt":  serve(200, "<!DOCTYPE html>\n<html><head><title>404</title></head></html>", "Content-Type", MediaTypeLinkFormat),
		"/untyped":  serve(200, "  \n<HTML><BODY>maintenance</BODY></HTML>", "Content-Type", ""),
		"/xml":      serve(200, `<?xml version="1.0"?><error><code>NoSuchKey</code></error>`, "Content-Type", "application/octet-stream"),
		"/timemap":  serve(200, `<http://example.com/>; rel="original", <{base}/web/1/x>; rel="memento"; datetime="Sat, 01 Jan 2000 00:00:00 GMT"`),
		"/emptytm":  serve(200, ""),
		"/original": serve(200, `<http://example.com/>; rel="original"`),
	})
	c := &Client{Timeout: 5 * time.Second}
	tests := []struct {
		name, path string
		mementos   int // -1: ErrNotTimeMap expected
	}{
		{"HTML as text/plain", "/plain", -1},
		{"HTML as link-format", "/linkfmt", -1},
		{"HTML in upper case after white space", "/untyped", -1},
		{"XML error document", "/xml", -1},
		{"a TimeMap", "/timemap", 1},
		{"an empty body stays an empty TimeMap", "/emptytm", 0},
		{"a TimeMap with only the original", "/original", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := c.FetchTimeMap(context.Background(), a.URL+tc.path)
			if tc.mementos < 0 {
				wantErr(t, err, "timemap", ErrNotTimeMap, false)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tm.Len() != tc.mementos {
				t.Errorf("%d mementos, want %d", tm.Len(), tc.mementos)
			}
		})
	}
}

// TestCancelledCallsLeakNoGoroutine: a context cancelled while a body is
// still arriving must end the call and leave no goroutine behind (the
// aggregator makes thousands of such calls).
func TestCancelledCallsLeakNoGoroutine(t *testing.T) {
	trickle := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", MediaTypeLinkFormat)
		w.Header().Set("Vary", "accept-datetime")
		w.Header().Set("Memento-Datetime", "Sat, 01 Jan 2000 00:00:00 GMT")
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		fmt.Fprint(w, mementoLines("http://a.example", "2001", "2002"))
		w.(http.Flusher).Flush()
		stall(w, r)
	}
	a := newArchive(t, map[string]http.HandlerFunc{"/tm": trickle, "/tg": trickle, "/m": trickle})
	tr := &http.Transport{}
	c := &Client{HTTP: &http.Client{Transport: tr}, Timeout: 10 * time.Second}
	base := runtime.NumGoroutine()
	calls := map[string]func(context.Context) error{
		"FetchTimeMap": func(ctx context.Context) error { _, err := c.FetchTimeMap(ctx, a.URL+"/tm"); return err },
		"TimeGate":     func(ctx context.Context) error { _, err := c.TimeGate(ctx, a.URL+"/tg", time.Now()); return err },
		"Memento":      func(ctx context.Context) error { _, err := c.Memento(ctx, a.URL+"/m"); return err },
	}
	for name, call := range calls {
		for range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			err := call(ctx)
			cancel()
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("%s: returned %v after the cancel", name, d)
			}
			if name == "FetchTimeMap" && !errors.Is(err, context.Canceled) {
				t.Errorf("%s: err = %v, want context.Canceled", name, err)
			}
		}
	}
	tr.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines after the calls, %d before", n, base)
	}
}

// TestFetchTimeMapFollowsTypedPages: a rel="timemap" page whose type
// carries parameters or other letter case is still a link-format page.
// Before the fix only the exact string "application/link-format" was
// followed, and the mementos of the other pages were silently missing.
func TestFetchTimeMapFollowsTypedPages(t *testing.T) {
	page := func(next, ts string) string {
		body := `<http://example.com/>; rel="original",
<{base}/web/` + ts + `/http://example.com/>; rel="memento"; datetime="` + map[string]string{"2010": "Fri, 01 Jan 2010 00:00:00 GMT", "2011": "Sat, 01 Jan 2011 00:00:00 GMT", "2012": "Sun, 01 Jan 2012 00:00:00 GMT"}[ts] + `"`
		if next != "" {
			body += ",\n" + next
		}
		return body
	}
	a := newArchive(t, map[string]http.HandlerFunc{
		"/p1":   serve(200, page(`<{base}/p2>; rel="timemap"; type="application/link-format; charset=utf-8"`, "2010")),
		"/p2":   serve(200, page(`<{base}/p3>; rel="timemap"; type="Application/Link-Format"`, "2011")),
		"/p3":   serve(200, page(`<{base}/json>; rel="timemap"; type="application/json"`, "2012")),
		"/json": serve(200, `{}`, "Content-Type", "application/json"),
	})
	tm, err := (&Client{Timeout: 5 * time.Second}).FetchTimeMap(context.Background(), a.URL+"/p1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"20100101000000", "20110101000000", "20120101000000"}, timestamps(tm)); diff != "" {
		t.Errorf("mementos (-want +got):\n%s", diff)
	}
	if n := a.hitsOf("/json"); n != 0 {
		t.Errorf("the application/json page was fetched %d times", n)
	}
}
