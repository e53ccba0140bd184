package aggregator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/mementokit/mementokit/memento"
)

// fuzzRig is one aggregator over two archives on 127.0.0.1 whose answers
// the fuzz input chooses, a canary listener no archive names, and a
// blacklist; it is built once per fuzzing process.
type fuzzRig struct {
	ag     *Aggregator
	h      http.Handler
	arcs   [2]*answeringArchive
	canary *canary
	asked  atomic.Int64

	mu                   sync.Mutex
	status               int
	header               []string
	body                 []byte
	budget, cacheTimeout time.Duration
}

func newFuzzRig(t testing.TB) *fuzzRig {
	r := &fuzzRig{canary: newCanary(t), budget: time.Second, cacheTimeout: 200 * time.Millisecond}
	for i := range r.arcs {
		r.arcs[i] = newAnsweringArchive(t, r.answer)
	}
	bl, err := ParseBlacklist(strings.NewReader("blocked.example\n127.0.0.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newMemCache(t)
	r.ag, err = New(&Options{Archives: []Archive{r.arcs[0].entry("a"), r.arcs[1].entry("b")}, Blacklist: bl, Cache: c,
		DynamicBudget: r.budget, RequestTimeout: 500 * time.Millisecond, CacheTimeout: r.cacheTimeout,
		MaxBodyBytes: 256 << 10, MaxPages: 5, Tolerance: -1, BaseURL: "http://agg.example"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.ag.Close() })
	r.h = r.ag.Handler()
	return r
}

func (r *fuzzRig) expand(s string, self string) string {
	return strings.NewReplacer("{canary}", r.canary.URL, "{self}", self).Replace(s)
}

// answer is every archive's handler: the status, headers and body of the
// current fuzz input.
func (r *fuzzRig) answer(w http.ResponseWriter, req *http.Request, urir string) {
	r.asked.Add(1)
	r.mu.Lock()
	status, header, body := r.status, r.header, r.body
	r.mu.Unlock()
	self := "http://" + req.Host
	for _, line := range header {
		k, v, ok := strings.Cut(line, ":")
		v = r.expand(strings.TrimSpace(v), self)
		if ok && httpguts.ValidHeaderFieldName(k) && httpguts.ValidHeaderFieldValue(v) {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(r.expand(string(body), self)))
}

var fuzzEndpoints = []string{"/timemap/link/", "/timemap/json/", "/timemap/cdxj/", "/timemap/link/1/", "/timegate/",
	"/memento/2001/", "/api/json/20010101/", "/list/2001/"}

// FuzzHandlerHostile sends the aggregator's HTTP handler hostile URI-Rs
// and headers while its archives (on 127.0.0.1) answer with what the
// input says: any status, headers (redirects and Link headers to a canary
// listener, to loopback spellings), and garbage bodies. Whatever comes,
// the handler answers within its bound with a documented status, writes
// no header with CR or LF, sends no Location and no memento that is not
// an http(s) URL, writes link format and JSON that parse, never contacts
// the canary, and asks no archive about a blacklisted host.
func FuzzHandlerHostile(f *testing.F) {
	tm := "<http://r.example/>; rel=\"original\",\n<{self}/web/20010101000000/http://r.example/>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"\n"
	f.Add("http://r.example/", "", "", uint16(0), "Content-Type: application/link-format", []byte(tm))
	f.Add("http://r.example/", "Mon, 01 Jan 2001 00:00:00 GMT", "", uint16(102), "Location: {canary}/x\nVary: accept-datetime", []byte(""))
	f.Add("/timemap/link/http://r.example/", "", "no-cache", uint16(102), "Location: {canary}/tm", []byte(""))
	f.Add("/timegate/http://r.example/", "", "", uint16(102), "Location: javascript:alert(1)\nLink: <javascript:x>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"", []byte(""))
	f.Add("http://blocked.example./", "", "", uint16(0), "", []byte(tm))
	f.Add("HTTP://BLOCKED..example:80/a?b", "", "", uint16(0), "", []byte(tm))
	f.Add("http://127.2/", "", "", uint16(0), "", []byte(tm))
	f.Add("http://r.example/", "", "only-if-cached", uint16(0), "Content-Type: application/link-format",
		[]byte("<{canary}/p2>; rel=\"timemap\",\n<http://x/\r\nSet-Cookie: a>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\""))
	f.Add("http://r.example/%%%", "garbage", "no-cache, only-if-cached", uint16(303), "Content-Type: text/html", []byte("<html>\x00\xff"))
	f.Add("http%3A%2F%2Fr.example%2F", "", "", uint16(0), "Content-Type: application/link-format", bytes.Repeat([]byte("<a>;rel=memento;datetime=\"x\","), 1000))
	f.Add("\x00\r\n", "\r\n", "\x00", uint16(300), "Link: <//[::1]:1/>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"", []byte{})
	rig := newFuzzRig(f)
	f.Fuzz(func(t *testing.T, target, acceptDatetime, cacheControl string, status uint16, header string, body []byte) {
		rig.mu.Lock()
		rig.status = 200 + int(status)%400
		rig.header = strings.Split(header, "\n")
		rig.body = body
		rig.mu.Unlock()
		raw := target
		if !strings.HasPrefix(raw, "/") {
			raw = fuzzEndpoints[len(target)%len(fuzzEndpoints)] + target
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RequestURI = raw
		if acceptDatetime != "" {
			req.Header["Accept-Datetime"] = []string{acceptDatetime}
		}
		if cacheControl != "" {
			req.Header["Cache-Control"] = []string{cacheControl}
		}
		canaryBefore, askedBefore := rig.canary.hits.Load(), rig.asked.Load()
		rec := httptest.NewRecorder()
		start := time.Now()
		rig.h.ServeHTTP(rec, req)
		elapsed := time.Since(start)
		if bound := rig.budget + 2*rig.cacheTimeout + searchGrace + 2*time.Second; elapsed > bound {
			t.Errorf("%q: answered after %v, past the bound %v", raw, elapsed, bound)
		}
		resp := rec.Result()
		switch resp.StatusCode {
		case 200, 302, 400, 403, 404, 502, 503, 504:
		default:
			t.Errorf("%q: status %d", raw, resp.StatusCode)
		}
		for k, vs := range resp.Header {
			for _, v := range vs {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Errorf("%q: header %s holds a control byte: %q", raw, k, v)
				}
			}
		}
		if loc := resp.Header.Get("Location"); loc != "" {
			if u, ok := cleanURIM(loc); !ok || u != loc {
				t.Errorf("%q: Location %q is not a clean http(s) URL", raw, loc)
			}
		}
		if n := rig.canary.hits.Load() - canaryBefore; n != 0 {
			t.Errorf("%q: the canary listener was contacted %d times", raw, n)
		}
		if resp.StatusCode == http.StatusForbidden && rig.asked.Load() != askedBefore {
			t.Errorf("%q: 403, yet an archive was asked", raw)
		}
		if !strings.HasPrefix(target, "/") && rig.ag.opts.Blacklist.Blocks(target) &&
			resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: the URI-R is blacklisted, yet the answer is %d", raw, resp.StatusCode)
		}
		if resp.StatusCode != http.StatusOK {
			return
		}
		b := rec.Body.Bytes()
		switch ct := resp.Header.Get("Content-Type"); {
		case strings.HasPrefix(ct, ctLink):
			tm, err := memento.ReadTimeMap(bytes.NewReader(b), &memento.ParseOptions{Strict: true})
			if err != nil {
				t.Fatalf("%q: the TimeMap written does not parse strictly: %v\n%s", raw, err, b)
			}
			for _, m := range tm.Mementos {
				if u, ok := cleanURIM(m.URIM); !ok || u != m.URIM {
					t.Errorf("%q: memento %q in the TimeMap", raw, m.URIM)
				}
			}
		case strings.HasPrefix(ct, ctJSON):
			if !json.Valid(b) {
				t.Errorf("%q: invalid JSON:\n%s", raw, b)
			}
		}
	})
}
