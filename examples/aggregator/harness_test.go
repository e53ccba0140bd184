package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// lockedBuffer is a bytes.Buffer safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// records decodes the JSON log lines whose msg is msg.
func (l *lockedBuffer) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Text())
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// urlWatch is the server's stdout: it hands over the URL of the
// "listening on" line.
type urlWatch struct {
	once sync.Once
	url  chan string
	buf  lockedBuffer
}

func (u *urlWatch) Write(p []byte) (int, error) {
	n, _ := u.buf.Write(p)
	s := u.buf.String()
	if i := strings.Index(s, "listening on "); i >= 0 {
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			u.once.Do(func() { u.url <- s[i+len("listening on ") : i+j] })
		}
	}
	return n, nil
}

// instance is one aggregator started by run on a loopback port.
type instance struct {
	URL    string
	Stderr *lockedBuffer
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

// start runs the server with args (after -addr 127.0.0.1:0 and a JSON
// log), waits until it listens, and stops it when the test ends.
func start(t *testing.T, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{Stderr: &lockedBuffer{}, cancel: cancel, done: make(chan error, 1)}
	out := &urlWatch{url: make(chan string, 1)}
	// No probes unless a test asks for them: the tests count the requests
	// the archives get.
	all := append([]string{"-addr", "127.0.0.1:0", "-log-format", "json", "-shutdown-timeout", "10s", "-probe-every", "0"}, args...)
	go func() { in.done <- run(ctx, all, strings.NewReader(""), out, in.Stderr) }()
	select {
	case in.URL = <-out.url:
	case err := <-in.done:
		cancel()
		t.Fatalf("run ended before listening: %v\nstderr:\n%s", err, in.Stderr)
	case <-time.After(15 * time.Second):
		cancel()
		t.Fatalf("not listening after 15 s; stderr:\n%s", in.Stderr)
	}
	t.Cleanup(func() {
		if err := in.stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return in
}

// stop cancels run's context (as SIGTERM does) and returns run's error.
func (in *instance) stop() error {
	in.once.Do(func() {
		in.cancel()
		select {
		case in.err = <-in.done:
		case <-time.After(30 * time.Second):
			in.err = context.DeadlineExceeded
		}
	})
	return in.err
}

// response is a finished HTTP exchange.
type response struct {
	Status int
	Header http.Header
	Body   string
}

var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends method path (a raw request target, sent as is) with headers.
func do(t *testing.T, base, method, path string, hdr ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, base+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = path // keep "//" and escapes exactly as written
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}
}

// metric returns the value of one series ("name{labels}" exactly as the
// text exposition writes it, labels sorted) from a /metrics body.
func metric(body, series string) (float64, bool) {
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// waitFor polls cond every 20 ms for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ts(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse("20060102150405", s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// listEntry is one archive of a JSON archive list.
type listEntry struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	TimeMap    string `json:"timemap"`
	TimeGate   string `json:"timegate"`
	MementoMap string `json:"mementomap,omitempty"`
}

func entryOf(id string, a *archivetest.Archive) listEntry {
	return listEntry{ID: id, Name: "Fake " + id, TimeMap: a.TimeMapPrefix(), TimeGate: a.TimeGatePrefix()}
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeList writes a JSON archive list.
func writeList(t *testing.T, dir string, entries ...listEntry) string {
	t.Helper()
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "archives.json", b)
}

// newArchive starts a fake archive closed when the test ends.
func newArchive(t *testing.T, cfg archivetest.Config) *archivetest.Archive {
	t.Helper()
	a := archivetest.New(cfg)
	t.Cleanup(a.Close)
	return a
}

func writeBytes(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
