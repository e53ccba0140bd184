package aggregator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/memento"
)

// hostileUpstream gives each archive a way to misbehave: never return
// (ignoring its context), answer after the budget, answer garbage, fail
// fast, or answer well. release ends the calls that ignore their context,
// so that the synctest bubble can finish.
type hostileUpstream struct {
	release chan struct{}
	calls   atomic.Int64
}

func (u *hostileUpstream) answer(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	u.calls.Add(1)
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	switch a.ID {
	case "ignores-context":
		<-u.release
		return []memento.Memento{{URIM: "http://late.example/1", Datetime: t0}}, 1, nil
	case "slow":
		select {
		case <-ctx.Done():
			return nil, 1, &UpstreamError{Archive: a.ID, Reason: ctxReason(ctx), Err: ctx.Err()}
		case <-time.After(time.Hour):
			return []memento.Memento{{URIM: "http://slow.example/1", Datetime: t0}}, 1, nil
		}
	case "garbage":
		return []memento.Memento{
			{URIM: "javascript:alert(1)", Datetime: t0},
			{URIM: "http://g.example/a\r\nSet-Cookie: x=1", Datetime: t0.Add(time.Hour)},
			{URIM: "data:text/html,<b>", Datetime: t0.Add(2 * time.Hour)},
			{URIM: "http://g.example/ok>\"<", Datetime: t0.Add(3 * time.Hour)},
			{URIM: "", Datetime: t0.Add(4 * time.Hour)},
		}, 1, nil
	case "fails":
		return nil, 1, &UpstreamError{Archive: a.ID, Reason: "status-500", Err: errors.New("HTTP status 500")}
	}
	return []memento.Memento{{URIM: "http://good.example/web/1/" + urir, Datetime: t0.Add(5 * time.Hour)}}, 1, nil
}

func (u *hostileUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	return u.answer(ctx, a, urir)
}

func (u *hostileUpstream) TimeGate(ctx context.Context, a *Archive, urir string, _ time.Time) ([]memento.Memento, int, error) {
	return u.answer(ctx, a, urir)
}

// hangingCache is a memory cache whose calls, while hang is set, never
// return until release is closed, whatever their context says (bbolt
// waiting for its writer lock, a driver that does not notice its
// deadline).
type hangingCache struct {
	cache.Cache
	hang    atomic.Bool
	release chan struct{}
}

func (c *hangingCache) wait() {
	if c.hang.Load() {
		<-c.release
	}
}

func (c *hangingCache) Get(ctx context.Context, k cache.URIRKey) (cache.Entry, error) {
	c.wait()
	return c.Cache.Get(ctx, k)
}

func (c *hangingCache) Put(ctx context.Context, u string, r cache.Result) error {
	c.wait()
	return c.Cache.Put(ctx, u, r)
}

func (c *hangingCache) RecordRequest(ctx context.Context, u string, at time.Time) error {
	c.wait()
	return c.Cache.RecordRequest(ctx, u, at)
}

func (c *hangingCache) Enqueue(ctx context.Context, u string, p cache.Priority, at time.Time) error {
	c.wait()
	return c.Cache.Enqueue(ctx, u, p, at)
}

// No request, whatever the archives and the cache do, takes longer than the
// configured bound: the dynamic search budget plus two cache deadlines
// plus the search's grace (in the synctest bubble, time moves only when
// everything waits, so the bound is checked exactly, without real sleeps).
// Every endpoint, with the cache answering, hanging, and past its cap of
// abandoned calls.
func TestNoRequestOutlivesItsBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const budget, cacheTimeout = 20 * time.Second, 2 * time.Second
		bound := budget + 2*cacheTimeout + searchGrace
		up := &hostileUpstream{release: make(chan struct{})}
		mem, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		hc := &hangingCache{Cache: mem, release: make(chan struct{})}
		var archives []Archive
		for _, id := range []string{"ignores-context", "slow", "garbage", "fails", "good"} {
			archives = append(archives, Archive{ID: id, TimeMap: "http://" + id + ".example/tm/", TimeGate: "http://" + id + ".example/tg/", Timeout: time.Hour})
		}
		ag, err := New(&Options{Archives: archives, Upstream: up, Cache: hc, DynamicBudget: budget, CacheTimeout: cacheTimeout, Tolerance: -1})
		if err != nil {
			t.Fatal(err)
		}
		h := ag.Handler()
		targets := []string{"/timemap/link/", "/timemap/json/", "/timemap/cdxj/", "/timemap/link/1/", "/timegate/",
			"/memento/2001/", "/api/json/2001/", "/list/2001/"}
		n := 0
		request := func(mode, target string, header ...string) *http.Response {
			t.Helper()
			n++
			req := httptest.NewRequest(http.MethodGet, target, nil)
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			rec := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(rec, req)
			if d := time.Since(start); d > bound {
				t.Errorf("%s %s: %v, longer than the bound %v", mode, target, d, bound)
			}
			resp := rec.Result()
			for k, vs := range resp.Header {
				for _, v := range vs {
					if strings.ContainsAny(v, "\r\n") || strings.Contains(strings.ToLower(v), "javascript:") {
						t.Errorf("%s %s: header %s: %q", mode, target, k, v)
					}
				}
			}
			if b := strings.ToLower(rec.Body.String()); strings.Contains(b, "javascript:") || strings.Contains(b, "data:text") || strings.Contains(b, "\r") {
				t.Errorf("%s %s: hostile URI-M in the body:\n%s", mode, target, rec.Body.String())
			}
			return resp
		}
		for _, mode := range []string{"cache answers", "cache hangs"} {
			hc.hang.Store(mode == "cache hangs")
			for i, p := range targets {
				for _, hdr := range [][]string{nil, {"Accept-Datetime", "Mon, 01 Jan 2001 03:00:00 GMT"}, {"Cache-Control", "no-cache"}, {"Cache-Control", "only-if-cached"}} {
					resp := request(mode, fmt.Sprintf("%shttp://r%d.example/", p, i), hdr...)
					if mode == "cache hangs" && !strings.Contains(resp.Header.Get("Cache-Degraded"), "timeout") && !strings.Contains(resp.Header.Get("Cache-Degraded"), "busy") {
						t.Errorf("%s %s: Cache-Degraded %q", mode, p, resp.Header.Get("Cache-Degraded"))
					}
				}
			}
		}
		// Past MaxCacheCalls abandoned calls the cache is not called at all:
		// requests still end within the bound, reporting "busy".
		for i := 0; i < MaxCacheCalls+50; i++ {
			request("cache saturated", fmt.Sprintf("/timemap/link/http://s%d.example/", i))
		}
		busy := false
		for _, f := range ag.CacheFailures() {
			busy = busy || f.Reason == CacheReasonBusy
		}
		if !busy {
			t.Errorf("no busy cache call after %d abandoned ones: %+v", MaxCacheCalls, ag.CacheFailures())
		}
		t.Logf("%d requests, %d upstream calls, cache failures %+v", n, up.calls.Load(), ag.CacheFailures())
		close(hc.release)
		close(up.release)
		synctest.Wait()
		ag.Close()
	})
}
