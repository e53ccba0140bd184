package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/archiveserver"
	"github.com/mementokit/mementokit/mementomap"
)

// localArchive is examples/archive's server (internal/archiveserver over
// an index file, archiveserver.HTTPServer) on 127.0.0.1, with the request
// targets it was sent.
type localArchive struct {
	URL  string
	mu   sync.Mutex
	seen []string
}

func (a *localArchive) targets() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen)
}

// startLocalArchive serves the CDXJ index lines as examples/archive does
// (LoadIndex, New, HTTPServer) on a loopback port until the test ends.
func startLocalArchive(t *testing.T, id, index string) *localArchive {
	t.Helper()
	ctx := t.Context()
	path := writeFile(t, t.TempDir(), id+".cdxj", []byte(index))
	ix, err := cdxj.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	idx, _, err := archiveserver.LoadIndex(ctx, []cdxj.Searcher{ix}, &archiveserver.LoadOptions{Map: &mementomap.BuildOptions{ArchiveID: id, Name: id}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := archiveserver.New(ctx, idx, &archiveserver.Options{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &localArchive{URL: "http://" + ln.Addr().String()}
	hs := archiveserver.HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen = append(a.seen, r.Method+" "+r.RequestURI)
		a.mu.Unlock()
		srv.ServeHTTP(w, r)
	}), nil, nil, nil)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	t.Cleanup(func() {
		hs.Shutdown(context.Background())
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("archive server: %v", err)
		}
	})
	return a
}

// TestMementoProxyLocalArchive: /memento/proxy/{datetime}/{URI-R} of the
// running aggregator fetches the closest memento from examples/archive's
// server in its Wayback identity form ({14 digits}id_/{URI-R}, as
// MemGator asks pywb and the Internet Archive), and answers with the
// archive's status, Content-Type and body, the memento's
// Memento-Datetime and the Link to the original and the archive's
// TimeGate.
func TestMementoProxyLocalArchive(t *testing.T) {
	const index = `com,example)/ 20050301120000 {"url": "http://example.com/"}
com,example)/ 20120615080910 {"url": "http://www.example.com/"}
`
	arc := startLocalArchive(t, "local", index)
	dir := t.TempDir()
	list := writeList(t, dir, listEntry{ID: "local", Name: "examples/archive", TimeMap: arc.URL + archiveserver.TimeMapPrefix, TimeGate: arc.URL + archiveserver.TimeGatePrefix})
	in := start(t, "-archives", list, "-cache", "memory", "-data-dir", filepath.Join(dir, "data"), "-workers", "0")

	direct := do(t, arc.URL, "GET", "/20120615080910/http://www.example.com/")
	if direct.Status != http.StatusOK || !strings.Contains(direct.Body, "Placeholder for the memento of <code>http://www.example.com/</code>") {
		t.Fatalf("the archive's memento: %d %q", direct.Status, direct.Body)
	}
	r := do(t, in.URL, "GET", "/memento/proxy/2012/"+held)
	if r.Status != http.StatusOK || r.Body != direct.Body {
		t.Fatalf("proxy: %d %q, want 200 and the archive's memento body %q\nstderr:\n%s", r.Status, r.Body, direct.Body, in.Stderr)
	}
	wantLink := "<" + held + `>; rel="original", <` + arc.URL + archiveserver.TimeGatePrefix + held + `>; rel="timegate"`
	if r.Header.Get("Memento-Datetime") != "Fri, 15 Jun 2012 08:09:10 GMT" || r.Header.Get("Content-Type") != direct.Header.Get("Content-Type") || r.Header.Get("Link") != wantLink {
		t.Errorf("proxy headers: Memento-Datetime %q, Content-Type %q (archive %q), Link %q, want %q",
			r.Header.Get("Memento-Datetime"), r.Header.Get("Content-Type"), direct.Header.Get("Content-Type"), r.Header.Get("Link"), wantLink)
	}
	want := "GET /20120615080910id_/http://www.example.com/"
	if seen := arc.targets(); !slices.Contains(seen, want) {
		t.Errorf("the archive was sent %q, want %q among them", seen, want)
	}
	// The earlier memento, closest to 2005.
	if r := do(t, in.URL, "GET", "/memento/proxy/2005/"+held); r.Status != http.StatusOK || r.Header.Get("Memento-Datetime") != "Tue, 01 Mar 2005 12:00:00 GMT" ||
		!strings.Contains(r.Body, "<code>http://example.com/</code> captured Tue, 01 Mar 2005 12:00:00 GMT") {
		t.Errorf("proxy 2005: %d %s %q", r.Status, r.Header.Get("Memento-Datetime"), r.Body)
	}
}
