package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBodyMemoryEndlessChunked: with a body memory budget of 4 MiB, 24
// requests sent at once, each asking two 127.0.0.1 archives, one whose
// TimeMap of unknown length never ends (cut at MaxBodyBytes, 2 MiB) and
// one that answers 836 bytes with a Content-Length: the endless bodies
// are read as they arrive and take turns past their first bytes, so none
// holds bytes it has not read and none keeps the small answers out.
// Every request is answered 200 with the small archive's memento, the
// endless archive named in Archive-Failures (too-large, or
// over-memory-budget when its turn did not come), no request is busy,
// the budget's peak stays within its limit and every byte goes back.
func TestBodyMemoryEndlessChunked(t *testing.T) {
	const limit = 4 << 20
	endless := newGatedArchive(t, 1<<40, 0)
	small := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urir := strings.TrimPrefix(r.RequestURI, "/tm/")
		b := fmt.Appendf(nil, "<%s>; rel=\"original\",\n<http://small.example/web/20100101000000/%s>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\",\n", urir, urir)
		b = append(b, strings.Repeat(" ", max(836-len(b), 0))...)
		w.Header().Set("Content-Type", "application/link-format")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}))
	t.Cleanup(small.Close)
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "endless", TimeMap: endless.URL + "/tm/"}, {ID: "small", TimeMap: small.URL + "/tm/"}},
		BodyMemory: limit, BodyMemoryWait: time.Minute, MaxBodyBytes: 2 << 20, Tolerance: 100,
		RequestTimeout: 10 * time.Minute, DynamicBudget: 10 * time.Minute, ThoroughBudget: 10 * time.Minute})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			resp, err := http.Get(fmt.Sprintf("%s/timemap/link/http://e%d.example/", srv.URL, i))
			if err != nil {
				t.Error(err)
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			f := resp.Header.Get("Archive-Failures")
			if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "http://small.example/web/20100101000000/") ||
				(f != "endless=too-large" && f != "endless=over-memory-budget") {
				first, _, _ := strings.Cut(string(b), "\n")
				t.Errorf("request %d: %d, Archive-Failures %q, %q, %v; want 200 with small's memento, endless too-large or over-memory-budget", i, resp.StatusCode, f, first, err)
			}
		})
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitReleased(t, ctx, ag)
	m := ag.BodyMemory()
	if m.Peak > limit || m.Held != 0 || m.Busy != 0 {
		t.Errorf("body memory %+v: want a peak within %d, nothing held, no busy refusal", m, limit)
	}
}

// plainTimeMap is a link-format TimeMap of n mementos a second apart, in
// the plain layout, with a self and a next-page link.
func plainTimeMap(n int) string {
	var b strings.Builder
	b.WriteString("<http://ex.com/>; rel=\"original\",\n<http://arc.example/timemap/link/http://ex.com/>; rel=\"self\"; type=\"application/link-format\",\n<http://arc.example/timemap/link/2/http://ex.com/>; rel=\"timemap\"; type=\"application/link-format\",\n")
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		d := t0.Add(time.Duration(i) * time.Second)
		fmt.Fprintf(&b, "<http://arc.example/web/%s/http://ex.com/>; rel=\"memento\"; datetime=\"%s\",\n", d.Format("20060102150405"), d.Format(http.TimeFormat))
	}
	return strings.TrimSuffix(b.String(), ",\n") + "\n"
}

// TestLinkChunks: a body of unknown length read through a small buffer
// (whole, one byte at a time) comes back byte for byte in chunks that
// each end a link-value, and fastChunks gives from them what fastPage
// gives from the whole text; a link longer than the buffer leaves the
// body not aligned, which fastChunks leaves to the general reader.
func TestLinkChunks(t *testing.T) {
	body := plainTimeMap(300)
	wms, wnext, wlinks, ok := fastPage(body, false)
	if !ok {
		t.Fatal("fastPage refuses the plain TimeMap")
	}
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return strings.NewReader(body) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(body)) },
	} {
		chunks, aligned, err := linkChunks(r(), make([]byte, 1000))
		if err != nil || !aligned || strings.Join(chunks, "") != body || len(chunks) < 30 {
			t.Fatalf("%s: %d chunks, aligned %v, %v; want over 30 aligned chunks of the body", name, len(chunks), aligned, err)
		}
		for i, c := range chunks[:len(chunks)-1] {
			if len(c) > 1000 || !strings.HasSuffix(c, ",\n") {
				t.Errorf("%s: chunk %d (%d bytes) ends %q, want a link-value's end within 1000 bytes", name, i, len(c), c[max(len(c)-10, 0):])
			}
		}
		ms, next, links, ok := fastChunks(chunks, aligned, false)
		if d := cmp.Diff([]any{wms, wnext, wlinks, true}, []any{ms, next, links, ok}); d != "" {
			t.Errorf("%s: fastChunks differs from fastPage (-fastPage +fastChunks):\n%s", name, d)
		}
	}
	long := "<http://ex.com/>; rel=\"original\",\n<http://arc.example/web/2001/http://ex.com/" + strings.Repeat("a", 2000) + ">; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\",\n" + plainTimeMap(20)
	chunks, aligned, err := linkChunks(strings.NewReader(long), make([]byte, 1000))
	if err != nil || aligned || strings.Join(chunks, "") != long {
		t.Fatalf("a link longer than the buffer: aligned %v, %v; want the body, not aligned", aligned, err)
	}
	if _, _, _, ok := fastChunks(chunks, aligned, false); ok {
		t.Error("fastChunks takes chunks that are not aligned")
	}
}

func FuzzFastChunksMatchReader(f *testing.F) {
	for _, tc := range fastPageSeeds {
		f.Add(tc.body, 64)
	}
	f.Add(plainTimeMap(20), 200)
	f.Fuzz(func(t *testing.T, body string, size int) {
		if size < 2 || size > 1<<16 {
			return
		}
		chunks, aligned, err := linkChunks(strings.NewReader(body), make([]byte, size))
		if err != nil || strings.Join(chunks, "") != body {
			t.Fatalf("linkChunks lost bytes: %v", err)
		}
		ms, next, links, ok := fastChunks(chunks, aligned, false)
		if !ok {
			return
		}
		wms, wnext, wlinks, err := readerPage(body)
		if err != nil {
			t.Fatalf("the general reader refuses what fastChunks accepted: %v", err)
		}
		if diff := cmp.Diff([]any{wms, wnext, wlinks}, []any{ms, next, links}); diff != "" {
			t.Errorf("fastChunks differs from the general reader (-reader +fast):\n%s", diff)
		}
	})
}

// TestFastPageMementoSlice: the memento slice grows with the mementos
// read: a real TimeMap's is at most a tenth larger than its mementos,
// and a page of one memento followed by 4 MiB of '<' (no plain page)
// allocates less than 1 MiB, not a slice for a memento per 56 bytes
// (6 MiB).
func TestFastPageMementoSlice(t *testing.T) {
	ms, _, _, ok := fastPage(plainTimeMap(50000), false)
	if !ok || len(ms) != 50000 || cap(ms) > 55000 {
		t.Errorf("a TimeMap of 50,000 mementos: ok %v, %d mementos in a slice of %d", ok, len(ms), cap(ms))
	}
	hostile := "<http://arc.example/web/2001/http://ex.com/>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\",\n" + strings.Repeat("<", 4<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, ok = fastPage(hostile, false)
	runtime.ReadMemStats(&after)
	if ok || after.TotalAlloc-before.TotalAlloc > 1<<20 {
		t.Errorf("one memento and 4 MiB of '<': ok %v, %d bytes allocated; want no plain page, under 1 MiB", ok, after.TotalAlloc-before.TotalAlloc)
	}
}
