package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMementoProxyCutIsNoWholeAnswer: a memento body that /memento/proxy
// cannot stream whole (the archive breaks the connection, streams without
// end past -max-proxy-bytes, or more slowly than -request-timeout allows)
// reaches the client as an incomplete answer, a read error, never as a
// complete 200; a memento announced over the cap is a 502 with nothing of
// it sent. Each is logged and counted in mementokit_proxy_aborted_total.
// The archive is a server on 127.0.0.1 whose TimeMap for
// http://KIND.example/ lists one memento at /m/KIND.
func TestMementoProxyCutIsNoWholeAnswer(t *testing.T) {
	const limit = 1 << 20
	chunk := []byte(strings.Repeat("x", 32<<10))
	var arcURL string
	arc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kind, ok := strings.CutPrefix(r.URL.Path, "/timemap/link/http://"); ok {
			kind = strings.TrimSuffix(strings.TrimSuffix(kind, "/"), ".example")
			w.Header().Set("Content-Type", "application/link-format")
			fmt.Fprintf(w, "<http://%s.example/>; rel=\"original\",\n<%s/m/%s>; rel=\"memento\"; datetime=\"Tue, 01 Mar 2005 12:00:00 GMT\"\n", kind, arcURL, kind)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/m/whole": // the control: a memento within the cap, whole
			w.Header().Set("Content-Length", fmt.Sprint(len(chunk)))
			w.Write(chunk)
		case "/m/broken": // announces 1 MB, sends 32 KiB, breaks the connection
			w.Header().Set("Content-Length", fmt.Sprint(limit-1))
			w.WriteHeader(200)
			w.Write(chunk)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		case "/m/endless": // chunked, without end
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/m/slow": // a few bytes now and then, without end
			for r.Context().Err() == nil {
				if _, err := w.Write([]byte("<p>")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(50 * time.Millisecond):
				}
			}
		case "/m/announced": // Content-Length over the cap
			w.Header().Set("Content-Length", fmt.Sprint(2*limit))
			w.WriteHeader(200)
			for range 2 * limit / len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer arc.Close()
	arcURL = arc.URL
	dir := t.TempDir()
	list := writeList(t, dir, listEntry{ID: "cut", Name: "cutting archive", TimeMap: arc.URL + "/timemap/link/"})
	in := start(t, "-archives", list, "-cache", "memory", "-data-dir", filepath.Join(dir, "data"), "-workers", "0",
		"-max-proxy-bytes", "1MiB", "-request-timeout", "1s")

	get := func(kind string) (int, int, error) {
		resp, err := http.Get(in.URL + "/memento/proxy/2005/http://" + kind + ".example/")
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, len(b), err
	}
	if status, n, err := get("whole"); status != 200 || n != len(chunk) || err != nil {
		t.Fatalf("whole memento: status %d, %d bytes, %v; want 200, %d bytes\nstderr:\n%s", status, n, err, len(chunk), in.Stderr)
	}
	for _, kind := range []string{"broken", "endless", "slow"} {
		status, n, err := get(kind)
		if err == nil {
			t.Errorf("%s memento: status %d, %d bytes read as a whole answer; want a read error", kind, status, n)
		}
		if n > limit {
			t.Errorf("%s memento: %d bytes sent, over the cap of %d", kind, n, limit)
		}
	}
	if status, n, err := get("announced"); status != http.StatusBadGateway || err != nil || n > 1000 {
		t.Errorf("memento announced over the cap: status %d, %d bytes, %v; want a 502 without the memento", status, n, err)
	}
	m := do(t, in.URL, "GET", "/metrics")
	for series, want := range map[string]float64{
		`mementokit_proxy_aborted_total{reason="cut"}`:        2, // broken, slow
		`mementokit_proxy_aborted_total{reason="over_limit"}`: 2, // endless, announced
	} {
		if got, ok := metric(m.Body, series); !ok || got != want {
			t.Errorf("%s = %v (%v), want %v", series, got, ok, want)
		}
	}
	if got := strings.Count(in.Stderr.String(), "memento proxy: body cut off"); got != 3 {
		t.Errorf("%d warnings of a cut body, want 3:\n%s", got, in.Stderr)
	}
}
