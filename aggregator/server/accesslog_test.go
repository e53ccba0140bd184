package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/memento"
)

// TestAccessRecordJSON: the direct access record is byte for byte what
// slog.JSONHandler writes for the same attributes and time, strings that
// need escaping included (quotes, controls, invalid UTF-8, U+2028, HTML
// characters, non-ASCII).
func TestAccessRecordJSON(t *testing.T) {
	at := time.Date(2026, 12, 2, 4, 50, 38, 123456789, time.UTC)
	odd := "a\"b\\c\nd\re\tf\x00g\x1fh\x7fi<j>&k\u2028l\u2029m\xffn\xe2\x82o é €\ufffd"
	ans := &aggregator.Answer{URIR: "http://example.com/" + odd, Scenario: "fresh", Source: aggregator.FromCache,
		Mementos: make([]memento.Memento, 3)}
	for i, a := range []accessRecord{
		{method: "GET", target: "/timemap/link/http://example.com/", endpoint: "timemap", status: 200, bytes: 1234,
			duration: 1500 * time.Microsecond, remote: "127.0.0.1:4242", userAgent: "curl/8"},
		{method: "GET", target: "/" + odd, endpoint: odd, status: 502, bytes: 0, duration: -1,
			remote: odd, userAgent: odd, failures: "a=timeout; " + odd, ans: ans, acceptDatetime: odd, archives: "a=found:3, " + odd + "=none"},
		{method: "HEAD", target: "/timegate/x", endpoint: "timegate", status: 302, ans: &aggregator.Answer{URIR: "x", Scenario: "unknown"}},
		{target: strings.Repeat("x", 3000), ans: ans, acceptDatetime: "Sun, 01 Jan 2006 00:00:00 GMT"},
	} {
		var want bytes.Buffer
		r := slog.NewRecord(at, slog.LevelInfo, "access", 0)
		r.AddAttrs(a.attrs(nil)...)
		if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got := a.appendJSON(nil, at); string(got) != want.String() {
			t.Errorf("record %d:\n got %s\nwant %s", i, got, want.Bytes())
		}
	}
	local := time.FixedZone("CET", 3600)
	a := accessRecord{method: "GET"}
	var want bytes.Buffer
	r := slog.NewRecord(at.In(local), slog.LevelInfo, "access", 0)
	r.AddAttrs(a.attrs(nil)...)
	_ = slog.NewJSONHandler(&want, nil).Handle(context.Background(), r)
	if got := a.appendJSON(nil, at.In(local)); string(got) != want.String() {
		t.Errorf("local time:\n got %s\nwant %s", got, want.Bytes())
	}
}

// TestAccessRecordsWhole: access records written directly and records
// of loggers derived with With, written concurrently to one writer
// through NewLogger, come out as whole lines.
func TestAccessRecordsWhole(t *testing.T) {
	c := DefaultConfig()
	var out bytes.Buffer
	log, err := c.NewLogger(&out)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := log.Handler().(*jsonHandler); !ok {
		t.Fatalf("NewLogger's JSON handler is %T", log.Handler())
	}
	derived := log.With("component", "aggregator")
	var wg sync.WaitGroup
	const n = 200
	for i := range 4 {
		wg.Go(func() {
			for range n {
				if i%2 == 0 {
					logAccess(context.Background(), log, &accessRecord{method: "GET", target: strings.Repeat("t", 500)})
				} else {
					derived.Info("request", "urir", strings.Repeat("u", 500))
				}
			}
		})
	}
	wg.Wait()
	flushAccess(log)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4*n {
		t.Fatalf("%d lines, want %d", len(lines), 4*n)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, `{"time":"`) || !strings.HasSuffix(l, "}") ||
			!strings.Contains(l, `"msg":"access"`) && !strings.Contains(l, `"component":"aggregator","msg":"request"`) &&
				!strings.Contains(l, `"msg":"request","component":"aggregator"`) {
			t.Fatalf("line %d is not one whole record: %.200s", i, l)
		}
	}
}

// TestAccessRecordsGathered: access records of NewLogger's JSON handler
// wait until flushAccess, the next other record (written after them) or
// the flush delay; a Server writes them when no other request is being
// answered, before the answer is sent.
func TestAccessRecordsGathered(t *testing.T) {
	c := DefaultConfig()
	var mu sync.Mutex
	var out bytes.Buffer
	log, err := c.NewLogger(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}))
	if err != nil {
		t.Fatal(err)
	}
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	ctx := context.Background()
	logAccess(ctx, log, &accessRecord{method: "GET", target: "/a"})
	logAccess(ctx, log, &accessRecord{method: "GET", target: "/b"})
	if got := text(); got != "" {
		t.Fatalf("written before a flush: %q", got)
	}
	log.Warn("other")
	lines := strings.Split(strings.TrimSuffix(text(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"target":"/a"`) || !strings.Contains(lines[1], `"target":"/b"`) ||
		!strings.Contains(lines[2], `"msg":"other"`) {
		t.Fatalf("after another record:\n%s", text())
	}
	logAccess(ctx, log, &accessRecord{method: "GET", target: "/c"})
	flushAccess(log)
	if got := text(); !strings.HasSuffix(got, `"target":"/c","endpoint":"","status":0,"bytes":0,"duration":0,"remote":"","user_agent":""}`+"\n") {
		t.Fatalf("after flushAccess:\n%s", got)
	}
	logAccess(ctx, log, &accessRecord{method: "GET", target: "/d"})
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(text(), `"target":"/d"`); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the timer did not write the record:\n%s", text())
		}
	}
	// Past accessBufBytes the records are written at once.
	big := &accessRecord{method: "GET", target: strings.Repeat("x", 1000)}
	before := strings.Count(text(), "\n")
	for range accessBufBytes/1000 + 1 {
		logAccess(ctx, log, big)
	}
	if n := strings.Count(text(), "\n") - before; n < accessBufBytes/2000 {
		t.Fatalf("%d records written after %d KiB of them", n, accessBufBytes>>10)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestAccessRecordNotHeldByWrite: while the log's Write of waiting
// records blocks (a slow disk), a request adds its record without
// waiting for it, and the record is written by the next flush, after
// those.
func TestAccessRecordNotHeldByWrite(t *testing.T) {
	c := DefaultConfig()
	var mu sync.Mutex
	var out bytes.Buffer
	entered, release := make(chan struct{}, 1), make(chan struct{})
	log, err := c.NewLogger(writerFunc(func(p []byte) (int, error) {
		select {
		case entered <- struct{}{}:
			<-release // the first Write blocks until released
		default:
		}
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	logAccess(ctx, log, &accessRecord{method: "GET", target: "/a"})
	flushed := make(chan struct{})
	go func() { flushAccess(log); close(flushed) }()
	<-entered
	added := make(chan struct{})
	go func() { logAccess(ctx, log, &accessRecord{method: "GET", target: "/b"}); close(added) }()
	select {
	case <-added:
	case <-time.After(10 * time.Second):
		t.Fatal("adding an access record waited for the blocked Write")
	}
	close(release)
	<-flushed
	flushAccess(log)
	mu.Lock()
	got := out.String()
	mu.Unlock()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"target":"/a"`) || !strings.Contains(lines[1], `"target":"/b"`) {
		t.Fatalf("records written:\n%s", got)
	}
}
