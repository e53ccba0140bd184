package server

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestMalformedMementoLinksCounted: every memento link of an archive's
// TimeMap that the search leaves out is counted for that archive (the
// Outcome's Dropped, a warning record, mementokit_upstream_mementos_dropped_total),
// whatever the reason: a datetime that cannot be read, no datetime, an
// empty one, a year out of range, a URI-M that is no http(s) URL; the
// good mementos are served. A page whose link-format cannot be read on
// (an unterminated entry, garbage between entries) is the archive's
// failure, named in Archive-Failures, never an answer that hides it; the
// mementos before the error are served.
// The archives are servers on 127.0.0.1; both TimeMap readers (the fast
// path and the streaming reader) are used.
func TestMalformedMementoLinksCounted(t *testing.T) {
	const good = `<http://ex.com/>; rel="original",
<http://ARC/web/20050301120000/http://ex.com/>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT",
<http://ARC/web/20100101000000/http://ex.com/>; rel="memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"`
	for _, tc := range []struct {
		name, bad string
		dropped   int    // memento links left out and counted
		failure   string // Archive-Failures when the page cannot be read on
	}{
		{name: "bad datetime", bad: `<http://ARC/web/1/x>; rel="memento"; datetime="not a date"`, dropped: 1},
		{name: "bad day", bad: `<http://ARC/web/1/x>; rel="memento"; datetime="Tue, 32 Mar 2005 12:00:00 GMT"`, dropped: 1},
		{name: "no datetime", bad: `<http://ARC/web/1/x>; rel="memento"`, dropped: 1},
		{name: "empty datetime", bad: `<http://ARC/web/1/x>; rel="memento"; datetime=""`, dropped: 1},
		{name: "two bad, general reader", bad: `<http://ARC/web/1/x>; rel = "memento"; datetime="x",` + "\n" + `<http://ARC/web/2/x>; rel="memento"`, dropped: 2},
		{name: "year out of range", bad: `<http://ARC/web/1/x>; rel="memento"; datetime="Sat, 01 Jan 0900 00:00:00 GMT"`, dropped: 1},
		{name: "not http", bad: `<javascript:alert(1)>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT"`, dropped: 1},
		{name: "unterminated entry", bad: `<http://ARC/web/1/x; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT"`, failure: "bad=bad-body"},
		{name: "unterminated quote", bad: `<http://ARC/web/1/x>; rel="memento"; datetime="Tue, 01 Mar`, failure: "bad=bad-body"},
		{name: "garbage", bad: `garbage here !!`, failure: "bad=bad-body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arcURL string
			arc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/link-format")
				io.WriteString(w, strings.ReplaceAll(good+",\n"+tc.bad+"\n", "http://ARC", arcURL))
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
			c.Archives, c.Cache, c.DataDir, c.Addr, c.Workers, c.ProbeEvery = list, "none", dir, "127.0.0.1:1208", 0, 0
			c.Logger = slog.New(slog.NewJSONHandler(out, nil))
			s, err := New(t.Context(), &c)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ts := httptest.NewServer(s)
			defer ts.Close()
			resp, err := http.Get(ts.URL + "/timemap/link/http://ex.com/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tc.failure != "" {
				if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "2" || resp.Header.Get("Archive-Failures") != tc.failure {
					t.Errorf("status %d, X-Memento-Count %q, Archive-Failures %q; want 200, the 2 mementos before the error, %q\n%s",
						resp.StatusCode, resp.Header.Get("X-Memento-Count"), resp.Header.Get("Archive-Failures"), tc.failure, body)
				}
				return
			}
			if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "2" {
				t.Errorf("status %d, X-Memento-Count %q; want 200 and the 2 good mementos\n%s", resp.StatusCode, resp.Header.Get("X-Memento-Count"), body)
			}
			mresp, err := http.Get(ts.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			mb, _ := io.ReadAll(mresp.Body)
			mresp.Body.Close()
			want := fmt.Sprintf(`mementokit_upstream_mementos_dropped_total{archive="bad"} %d`, tc.dropped)
			if !strings.Contains(string(mb), want+"\n") {
				t.Errorf("metrics lack %q", want)
			}
			if !strings.Contains(out.String(), fmt.Sprintf(`"archive":"bad","urir":"http://ex.com/","left_out":%d`, tc.dropped)) {
				t.Errorf("no warning naming %d left out:\n%s", tc.dropped, out)
			}
		})
	}
}
