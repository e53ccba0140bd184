package aggregator

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// answeringArchive is an archive on 127.0.0.1 whose TimeMap and TimeGate
// answers are chosen per request by a function of the URI-R.
type answeringArchive struct {
	*httptest.Server
	mu       sync.Mutex
	answer   func(w http.ResponseWriter, r *http.Request, urir string)
	requests atomic.Int64
}

func newAnsweringArchive(t testing.TB, answer func(w http.ResponseWriter, r *http.Request, urir string)) *answeringArchive {
	t.Helper()
	a := &answeringArchive{answer: answer}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		raw := r.RequestURI
		urir := raw
		for _, p := range []string{"/timemap/link/", "/timegate/"} {
			urir = strings.TrimPrefix(urir, p)
		}
		a.mu.Lock()
		f := a.answer
		a.mu.Unlock()
		f(w, r, urir)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *answeringArchive) set(f func(w http.ResponseWriter, r *http.Request, urir string)) {
	a.mu.Lock()
	a.answer = f
	a.mu.Unlock()
}

func (a *answeringArchive) entry(id string) Archive {
	return Archive{ID: id, TimeMap: a.URL + "/timemap/link/", TimeGate: a.URL + "/timegate/"}
}

// wellBehaved answers a TimeMap of one memento and a TimeGate 302 to it.
func wellBehaved(base string) func(w http.ResponseWriter, r *http.Request, urir string) {
	return func(w http.ResponseWriter, r *http.Request, urir string) {
		urim := base + "/web/20010101000000/" + urir
		if strings.HasPrefix(r.RequestURI, "/timegate/") {
			w.Header().Set("Vary", "accept-datetime")
			w.Header().Set("Location", urim)
			w.Header().Set("Link", "<"+urim+`>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/link-format")
		fmt.Fprintf(w, "<%s>; rel=\"original\",\n<%s>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"\n", urir, urim)
	}
}

// A TimeMap larger than the body cap is a property of that URI-R: however
// many such requests come, the archive stays awake for everyone else.
func TestOverCapAnswersDoNotPutTheArchiveToSleep(t *testing.T) {
	var a *answeringArchive
	a = newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		if strings.HasPrefix(urir, "http://huge.example/") {
			w.Header().Set("Content-Type", "application/link-format")
			line := "<" + a.URL + "/web/20010101000000/" + urir + `>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",` + "\n"
			for range 64 << 10 / len(line) * 2 {
				if _, err := fmt.Fprint(w, line); err != nil {
					return
				}
			}
			return
		}
		wellBehaved(a.URL)(w, r, urir)
	})
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, MaxBodyBytes: 64 << 10, Tolerance: 3, DormantFor: time.Hour})
	h := ag.Handler()
	for i := range 6 {
		// The mementos read before the cap are served, with the failure
		// named: the answer is partial, never cached as complete.
		resp, body := do(t, h, http.MethodGet, fmt.Sprintf("/timemap/link/http://huge.example/%d", i))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Archive-Failures") != "a="+ReasonTooLarge || resp.Header.Get("X-Memento-Count") == "0" {
			t.Errorf("over-cap request %d: %d, Archive-Failures %q, %s mementos; want 200 with the mementos read and a=%s\n%.300s",
				i, resp.StatusCode, resp.Header.Get("Archive-Failures"), resp.Header.Get("X-Memento-Count"), ReasonTooLarge, body)
		}
	}
	for _, target := range []string{"/timemap/link/http://other.example/", "/timegate/http://other.example/"} {
		resp, body := do(t, h, http.MethodGet, target)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
			t.Errorf("%s after over-cap answers: %d (Archive-Failures %q), want the archive asked and answering\n%s",
				target, resp.StatusCode, resp.Header.Get("Archive-Failures"), body)
		}
	}
	if st := ag.Stats()[0]; !st.DormantUntil.IsZero() || st.DormantSkips != 0 {
		t.Errorf("archive stats after over-cap answers: %+v; want it awake", st)
	}
}

// A 200 that is not a usable answer (empty, unparseable, an HTML page, a
// TimeGate 200 without a memento) is a failure on both paths: it is never
// cached as "no mementos", and once the archive answers properly the
// mementos are served at once. It does not put the archive to sleep either.
func TestMalformedAnswersAreFailuresNeverNegatives(t *testing.T) {
	bad := map[string]func(w http.ResponseWriter, r *http.Request, urir string){
		"empty_200": func(w http.ResponseWriter, r *http.Request, urir string) {
			w.Header().Set("Content-Type", "application/link-format")
			w.WriteHeader(http.StatusOK)
		},
		"original_only": func(w http.ResponseWriter, r *http.Request, urir string) {
			w.Header().Set("Content-Type", "application/link-format")
			fmt.Fprintf(w, "<%s>; rel=\"original\"\n", urir)
		},
		"garbage": func(w http.ResponseWriter, r *http.Request, urir string) {
			w.Header().Set("Content-Type", "application/link-format")
			fmt.Fprint(w, "\x00\x01\x02<<<;;;\"\"\"\xff\xfe")
		},
		"html_200": func(w http.ResponseWriter, r *http.Request, urir string) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!doctype html><title>Maintenance</title><p>Back soon</p>")
		},
		"javascript_urims": func(w http.ResponseWriter, r *http.Request, urir string) {
			w.Header().Set("Content-Type", "application/link-format")
			fmt.Fprint(w, `<javascript:alert(1)>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`)
		},
	}
	upstreams := map[string]func() Upstream{
		"HTTPUpstream":   func() Upstream { return nil },
		"ClientUpstream": func() Upstream { return &ClientUpstream{} },
	}
	for name, answer := range bad {
		for uname, up := range upstreams {
			t.Run(uname+"/"+name, func(t *testing.T) {
				a := newAnsweringArchive(t, answer)
				c := newMemCache(t)
				ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, Cache: c, Tolerance: 2, DormantFor: time.Hour, Upstream: up()})
				h := ag.Handler()
				for range 3 {
					resp, body := do(t, h, http.MethodGet, "/timemap/link/http://r.example/")
					if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Archive-Failures") == "" {
						t.Errorf("malformed answer: %d, Archive-Failures %q; want 502 naming the archive\n%s", resp.StatusCode, resp.Header.Get("Archive-Failures"), body)
					}
					tg, body := do(t, h, http.MethodGet, "/timegate/http://r.example/")
					if tg.StatusCode != http.StatusBadGateway || tg.Header.Get("Archive-Failures") == "" {
						t.Errorf("malformed TimeGate answer: %d, Archive-Failures %q; want 502 naming the archive\n%s", tg.StatusCode, tg.Header.Get("Archive-Failures"), body)
					}
				}
				if e, err := c.Get(t.Context(), cache.URIRKeyOf("http://r.example/")); err == nil && e.Status == cache.StatusNone {
					t.Errorf("a malformed answer was cached as %q", e.Status)
				}
				if st := ag.Stats()[0]; !st.DormantUntil.IsZero() {
					t.Errorf("malformed answers put the archive to sleep: %+v", st)
				}
				a.set(wellBehaved(a.URL))
				resp, body := do(t, h, http.MethodGet, "/timemap/link/http://r.example/")
				if resp.StatusCode != http.StatusOK {
					t.Errorf("after the archive recovered: %d, want 200 at once\n%s", resp.StatusCode, body)
				}
			})
		}
	}
}

// The TimeMap and the TimeGate paths judge the same kind of answer the
// same way.
func TestOneClassificationForBothPaths(t *testing.T) {
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request, urir string)
		want   Class
	}{
		{"200_without_memento", func(w http.ResponseWriter, r *http.Request, urir string) { w.WriteHeader(http.StatusOK) }, ClassMalformed},
		{"404", func(w http.ResponseWriter, r *http.Request, urir string) { http.NotFound(w, r) }, ClassNone},
		{"410", func(w http.ResponseWriter, r *http.Request, urir string) { w.WriteHeader(http.StatusGone) }, ClassNone},
		{"503", func(w http.ResponseWriter, r *http.Request, urir string) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, ClassDown},
		{"429", func(w http.ResponseWriter, r *http.Request, urir string) { w.WriteHeader(http.StatusTooManyRequests) }, ClassDown},
		{"403_robots", func(w http.ResponseWriter, r *http.Request, urir string) { w.WriteHeader(http.StatusForbidden) }, ClassPerURI},
		{"204", func(w http.ResponseWriter, r *http.Request, urir string) { w.WriteHeader(http.StatusNoContent) }, ClassMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := newAnsweringArchive(t, tc.answer)
			ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}})
			for _, s := range []Service{TimeMapCache, TimeGateDynamic} {
				res, err := ag.Search(t.Context(), s, "http://r.example/", time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Outcomes[0].Class; got != tc.want {
					t.Errorf("%s: class %v (%+v), want %v", s, got, res.Outcomes[0], tc.want)
				}
			}
		})
	}
}

func TestClassOf(t *testing.T) {
	for reason, want := range map[string]Class{
		ReasonTimeout: ClassDown, ReasonReset: ClassDown, ReasonNetwork: ClassDown, "status-500": ClassDown,
		"status-503": ClassDown, "status-429": ClassDown, "status-408": ClassDown, "something-new": ClassDown,
		ReasonTooLarge: ClassPerURI, ReasonTooManyPages: ClassPerURI, "status-403": ClassPerURI, "status-451": ClassPerURI,
		ReasonWrongType: ClassMalformed, ReasonBadBody: ClassMalformed, ReasonEmptyAnswer: ClassMalformed,
		ReasonBadURIM: ClassMalformed, ReasonRedirectLoop: ClassMalformed, ReasonUnexpectedReply: ClassMalformed,
		ReasonHostNotAllowed: ClassMalformed, "status-204": ClassMalformed, "status-x": ClassMalformed,
	} {
		if got := ClassOf(reason); got != want {
			t.Errorf("ClassOf(%q) = %v, want %v", reason, got, want)
		}
	}
}

// Pages past MaxPages are a cap of this URI-R: the mementos read are kept
// and served, the result is not complete (not cached as the whole truth),
// and the archive stays awake.
func TestTooManyPagesKeepsWhatWasRead(t *testing.T) {
	var a *answeringArchive
	a = newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		n := 0
		if p, ok := strings.CutPrefix(r.RequestURI, "/page/"); ok {
			fmt.Sscan(p, &n)
		}
		w.Header().Set("Content-Type", "application/link-format")
		fmt.Fprintf(w, "<%s/page/%d>; rel=\"timemap\",\n<%s/web/%d/http://r.example/>; rel=\"memento\"; datetime=\"%s\"\n",
			a.URL, n+1, a.URL, n, time.Unix(int64(n)*86400+1e9, 0).UTC().Format(http.TimeFormat))
	})
	c := newMemCache(t)
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, MaxPages: 5, Cache: c, Tolerance: 1, DormantFor: time.Hour})
	res, err := ag.Search(t.Context(), TimeMapCache, "http://r.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if o.Class != ClassPerURI || o.Reason != ReasonTooManyPages || len(res.Mementos) != 5 || res.Complete() {
		t.Errorf("outcome %+v, %d mementos, complete %v; want a per-URI-R failure with the 5 mementos read", o, len(res.Mementos), res.Complete())
	}
	if st := ag.Stats()[0]; !st.DormantUntil.IsZero() {
		t.Errorf("too many pages put the archive to sleep (tolerance 1): %+v", st)
	}
}

// An answer that has begun (headers sent) but streams too slowly to end
// within the archive's timeout, as the TimeMap of a much-captured URI-R
// does, is this URI-R's: the mementos read are kept, and however many such
// requests come the archive stays awake. An archive that sends no
// response at all still goes to sleep.
func TestSlowAnswersDoNotPutTheArchiveToSleep(t *testing.T) {
	a := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		if strings.Contains(urir, "silent.example") {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/link-format")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "<http://m.example/%d/%s>; rel=\"memento\"; datetime=\"%s\",\n", i, urir,
				time.Unix(1e9+int64(i)*3600, 0).UTC().Format(http.TimeFormat)); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, RequestTimeout: 300 * time.Millisecond, Tolerance: 2, DormantFor: time.Hour})
	for i := range 4 {
		res, err := ag.Search(t.Context(), TimeMapDynamic, fmt.Sprintf("http://big%d.example/", i), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		o := res.Outcomes[0]
		if o.Reason != ReasonSlowAnswer || o.Class != ClassPerURI || len(res.Mementos) == 0 {
			t.Errorf("slow answer %d: %+v with %d mementos; want slow-answer, per-URI-R, the mementos read kept", i, o, len(res.Mementos))
		}
	}
	if st := ag.Stats()[0]; !st.DormantUntil.IsZero() {
		t.Fatalf("slow answers put the archive to sleep: %+v", st)
	}
	for i := range 2 {
		res, err := ag.Search(t.Context(), TimeMapDynamic, fmt.Sprintf("http://silent%d.silent.example/", i), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Reason != ReasonTimeout || o.Class != ClassDown {
			t.Errorf("no response: %+v, want timeout, down", o)
		}
	}
	if st := ag.Stats()[0]; st.DormantUntil.IsZero() {
		t.Errorf("an archive that sends no response did not go to sleep: %+v", st)
	}
}
