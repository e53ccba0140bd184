package server

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestBadBodyKeepsMementosBefore: an archive on 127.0.0.1 whose TimeMap
// sends N well-formed memento links and then garbage (or an unterminated
// entry) is a failure of reason bad-body (Archive-Failures, the failed
// outcome in the metrics), and the N mementos read before the error are
// in the answer, counted in a warning record; the answer is not stored as
// a complete one, so the next request searches the archive again.
func TestBadBodyKeepsMementosBefore(t *testing.T) {
	const n = 3
	for _, tail := range []struct{ name, bad string }{
		{"garbage", "garbage here !!\n"},
		{"unterminated entry", `<http://ARC/web/9/x; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT"` + "\n"},
	} {
		t.Run(tail.name, func(t *testing.T) {
			var arcURL string
			var hits atomic.Int32
			arc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Content-Type", "application/link-format")
				var b strings.Builder
				b.WriteString(`<http://ex.com/>; rel="original",` + "\n")
				for i := range n {
					fmt.Fprintf(&b, `<%s/web/200%d0101000000/http://ex.com/>; rel="memento"; datetime="Sat, 01 Jan 200%d 00:00:00 GMT",`+"\n", arcURL, i+1, i+1)
				}
				b.WriteString(strings.ReplaceAll(tail.bad, "http://ARC", arcURL))
				io.WriteString(w, b.String())
			}))
			defer arc.Close()
			arcURL = arc.URL
			dir := t.TempDir()
			list := dir + "/archives.json"
			if err := os.WriteFile(list, []byte(`[{"id": "bad", "timemap": "`+arc.URL+`/timemap/link/"}]`), 0o644); err != nil {
				t.Fatal(err)
			}
			out := &lockedBuffer{}
			c := DefaultConfig()
			c.Archives, c.Cache, c.DataDir, c.Addr, c.Workers, c.ProbeEvery = list, "memory", dir, "127.0.0.1:1208", 0, 0
			c.Logger = slog.New(slog.NewJSONHandler(out, nil))
			s, err := New(t.Context(), &c)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ts := httptest.NewServer(s)
			defer ts.Close()
			get := func(path string) (*http.Response, string) {
				t.Helper()
				resp, err := http.Get(ts.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp, string(body)
			}
			resp, body := get("/timemap/link/http://ex.com/")
			if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != fmt.Sprint(n) || resp.Header.Get("Archive-Failures") != "bad=bad-body" {
				t.Fatalf("status %d, X-Memento-Count %q, Archive-Failures %q; want 200, %d, %q\n%s",
					resp.StatusCode, resp.Header.Get("X-Memento-Count"), resp.Header.Get("Archive-Failures"), n, "bad=bad-body", body)
			}
			for i := range n {
				if urim := fmt.Sprintf("<%s/web/200%d0101000000/http://ex.com/>", arcURL, i+1); !strings.Contains(body, urim) {
					t.Errorf("answer lacks %s\n%s", urim, body)
				}
			}
			if !strings.Contains(out.String(), fmt.Sprintf(`"archive":"bad","urir":"http://ex.com/","kept":%d`, n)) {
				t.Errorf("no warning naming %d kept:\n%s", n, out)
			}
			_, mb := get("/metrics")
			if want := `mementokit_upstream_answers_total{archive="bad",outcome="failed"} 1`; !strings.Contains(mb, want+"\n") {
				t.Errorf("metrics lack %q", want)
			}
			resp, body = get("/timemap/link/http://ex.com/")
			if resp.StatusCode != 200 || resp.Header.Get("Archive-Failures") != "bad=bad-body" || hits.Load() != 2 {
				t.Errorf("second request: status %d, Archive-Failures %q, archive asked %d times; want 200, bad=bad-body, 2 (a partial answer is searched again)\n%s",
					resp.StatusCode, resp.Header.Get("Archive-Failures"), hits.Load(), body)
			}
		})
	}
}
