package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// reuseArchive serves TimeMaps of n mementos for every URI-R
// "http://site.example/N/..." (N mementos, 6 hours apart from a start
// that depends on the archive and the URI-R), with a Content-Length
// unless chunked; perPage > 0 splits them into pages linked with
// rel="timemap".
func reuseArchive(t *testing.T, id string, chunked bool, perPage int) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := 1
		rest, ok := strings.CutPrefix(r.RequestURI, "/tm/")
		if !ok {
			p, tail, _ := strings.Cut(strings.TrimPrefix(r.RequestURI, "/page/"), "/")
			page, _ = strconv.Atoi(p)
			rest = tail
		}
		n, err := strconv.Atoi(strings.Split(strings.TrimPrefix(rest, "http://site.example/"), "/")[0])
		if err != nil || n == 0 {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", rest)
		lo, hi := 0, n
		if perPage > 0 {
			lo, hi = (page-1)*perPage, min(page*perPage, n)
			if hi < n {
				fmt.Fprintf(&b, "<%s/page/%d/%s>; rel=\"timemap\",\n", srv.URL, page+1, rest)
			}
		}
		for _, m := range reuseMementos(id, rest, n)[lo:hi] {
			fmt.Fprintf(&b, "<%s>; rel=\"memento\"; datetime=\"%s\",\n", m.URIM, memento.FormatHTTPDate(m.Datetime))
		}
		w.Header().Set("Content-Type", "application/link-format")
		body := b.String()
		if chunked {
			_, _ = w.Write([]byte(body[:len(body)/2]))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte(body[len(body)/2:]))
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// reuseMementos is what reuseArchive id lists for urir.
func reuseMementos(id, urir string, n int) []memento.Memento {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(len(urir)+int(id[len(id)-1])) * time.Minute)
	ms := make([]memento.Memento, n)
	for i := range ms {
		dt := t0.Add(time.Duration(i) * 6 * time.Hour)
		ms[i] = memento.Memento{URIM: "http://" + id + ".example/web/" + dt.Format("20060102150405") + "/" + urir, Datetime: dt, Archive: id}
	}
	return ms
}

// TestReusedListsKeepResults: the memento lists and body buffers a
// search reuses once it has merged its archives' answers are never
// those of a Result given out. Results of three archives (one of them
// paged, one chunked), of one archive alone (its list is the Result's)
// and of one paged archive alone keep their URI-Ms and datetimes while
// many more searches run, each over bodies of other lengths and
// URI-Ms.
func TestReusedListsKeepResults(t *testing.T) {
	a1 := reuseArchive(t, "a1", false, 0)
	a2 := reuseArchive(t, "a2", true, 0)
	a3 := reuseArchive(t, "a3", false, 70)
	ag := newAggregator(t, Options{Archives: []Archive{
		{ID: "a1", TimeMap: a1.URL + "/tm/"}, {ID: "a2", TimeMap: a2.URL + "/tm/"}, {ID: "a3", TimeMap: a3.URL + "/tm/"},
	}})
	type kept struct {
		res  *Result
		want []memento.Memento
	}
	var keep []kept
	check := func(k kept) {
		t.Helper()
		got := k.res.Mementos
		if len(got) != len(k.want) {
			t.Fatalf("%s: %d mementos, want %d", k.res.URIR, len(got), len(k.want))
		}
		for i := range got {
			if got[i].URIM != k.want[i].URIM || !got[i].Datetime.Equal(k.want[i].Datetime) || got[i].Archive != k.want[i].Archive {
				t.Fatalf("%s: memento %d is %+v, want %+v", k.res.URIR, i, got[i], k.want[i])
			}
		}
	}
	search := func(urir string) *Result {
		t.Helper()
		res, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, n := range []int{300, 41, 1000} {
		urir := fmt.Sprintf("http://site.example/%d/all", n)
		var want []memento.Memento
		for _, id := range []string{"a1", "a2", "a3"} {
			want = append(want, reuseMementos(id, urir, n)...)
		}
		want = merge(want, func(id string) int { return int(id[1] - '0') })
		res := search(urir)
		keep = append(keep, kept{res, want})
		check(keep[len(keep)-1])
	}
	// One archive alone (a registry of one): its list, or the join of its
	// pages, is the Result's.
	for _, tc := range []struct {
		id  string
		url string
	}{{"a1", a1.URL}, {"a3", a3.URL}} {
		solo := newAggregator(t, Options{Archives: []Archive{{ID: tc.id, TimeMap: tc.url + "/tm/"}}})
		urir := "http://site.example/500/solo"
		res, err := solo.Search(context.Background(), TimeMapCache, urir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		k := kept{res, reuseMementos(tc.id, urir, 500)}
		check(k)
		keep = append(keep, k)
		for i := range 20 {
			_, _ = solo.Search(context.Background(), TimeMapCache, fmt.Sprintf("http://site.example/%d/solo-other-%d", 490+i, i), time.Time{})
		}
		check(k)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				urir := fmt.Sprintf("http://site.example/%d/other/%d/%d", 200+(g*25+i)%400, g, i)
				if _, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range keep {
		check(k)
	}
}

// TestOtherUpstreamListsNotReused: the lists of an Upstream other than
// HTTPUpstream may be its own data; a search never reuses (nor zeroes)
// them.
func TestOtherUpstreamListsNotReused(t *testing.T) {
	held := reuseMementos("a1", "http://site.example/", 50)
	up := fixedUpstream{held}
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a1", TimeMap: "http://a1/"}, {ID: "a2", TimeMap: "http://a2/"}}, Upstream: up})
	for range 3 {
		res, err := ag.Search(context.Background(), TimeMapCache, "http://site.example/", time.Time{})
		if err != nil || len(res.Mementos) != 50 {
			t.Fatalf("search: %v, %d mementos", err, len(res.Mementos))
		}
	}
	want := reuseMementos("a1", "http://site.example/", 50)
	for i := range held {
		if held[i].URIM != want[i].URIM || !held[i].Datetime.Equal(want[i].Datetime) {
			t.Fatalf("the upstream's memento %d is now %+v, want %+v", i, held[i], want[i])
		}
	}
}

// fixedUpstream answers every TimeMap with the same list (its own).
type fixedUpstream struct{ ms []memento.Memento }

func (f fixedUpstream) TimeMap(context.Context, *Archive, string) ([]memento.Memento, int, error) {
	return f.ms, 1, nil
}

func (f fixedUpstream) TimeGate(context.Context, *Archive, string, time.Time) ([]memento.Memento, int, error) {
	return f.ms, 1, nil
}

// TestFreeListBounds: a freeList gives a kept slice only within the
// capacities asked for, keeps none under its smallest or over its
// largest capacity, none past its total nor past maxFree slices, and
// zeroes what it keeps (unless dirty).
func TestFreeListBounds(t *testing.T) {
	f := freeList[*int]{most: 100, one: 60}
	x := 1
	s := make([]*int, 3, 50)
	s[0], s[2] = &x, &x
	f.put(s)
	f.put(make([]*int, 0, 61)) // over one: not kept
	f.put(make([]*int, 0, 40))
	f.put(make([]*int, 0, 20)) // 50+40+20 > 100: not kept
	if f.held != 90 || len(f.items) != 2 {
		t.Fatalf("held %d in %d slices, want 90 in 2", f.held, len(f.items))
	}
	if g := f.get(45, 49); g != nil {
		t.Errorf("get(45, 49) = cap %d, want none", cap(g))
	}
	g := f.get(30, 60)
	if cap(g) != 40 || len(g) != 0 {
		t.Errorf("get(30, 60) = len %d cap %d, want the smallest that fits, 0 and 40", len(g), cap(g))
	}
	g = f.get(45, 50)
	if cap(g) != 50 || g[:3][0] != nil || g[:3][2] != nil {
		t.Errorf("get(45, 50) = cap %d, %v; want 50, zeroed", cap(g), g[:3])
	}
	if f.held != 0 || f.get(0, 100) != nil {
		t.Errorf("held %d after taking every slice", f.held)
	}
	small := freeList[byte]{most: 1 << 20, least: 10, one: 100}
	small.put(make([]byte, 0, 9)) // under least: not kept
	for range maxFree + 1 {
		small.put(make([]byte, 0, 10))
	}
	if len(small.items) != maxFree || small.get(1, 9) != nil {
		t.Errorf("%d slices kept, want %d, none under 10", len(small.items), maxFree)
	}
	b := freeList[byte]{most: 100, one: 100, dirty: true}
	b.put([]byte("abc"))
	if g := b.get(3, 3); string(g[:3]) != "abc" {
		t.Errorf("a dirty list's slice is %q, want its bytes as they were", g[:3])
	}
}

// resultCatcher is a ResponseWriter that notes the Result of the
// request's answer (for the test to look at once the request is done).
type resultCatcher struct {
	*httptest.ResponseRecorder
	res *Result
}

func (c *resultCatcher) LogAnswer(_ *http.Request, ans *Answer) bool {
	c.res = ans.Result
	return false
}

// TestMergedListGivenBack: the merged list of a search that only Handler
// requests used goes back for reuse once they have answered (its
// mementos zeroed), while the Results of Search and Lookup callers keep
// theirs; Handler answers shared by concurrent requests of the same
// URI-Rs stay byte for byte those of the same requests made one at a
// time (run with -race too).
func TestMergedListGivenBack(t *testing.T) {
	a1 := reuseArchive(t, "a1", false, 0)
	a2 := reuseArchive(t, "a2", true, 0)
	a3 := reuseArchive(t, "a3", false, 70)
	ag := newAggregator(t, Options{Archives: []Archive{
		{ID: "a1", TimeMap: a1.URL + "/tm/"}, {ID: "a2", TimeMap: a2.URL + "/tm/"}, {ID: "a3", TimeMap: a3.URL + "/tm/"},
	}})
	h := ag.Handler()
	get := func(urir string) (*resultCatcher, string) {
		t.Helper()
		c := &resultCatcher{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(c, httptest.NewRequest("GET", "/timemap/link/"+urir, nil))
		if c.Code != http.StatusOK {
			t.Fatalf("%s: status %d", urir, c.Code)
		}
		return c, c.Body.String()
	}
	c, _ := get("http://site.example/300/given-back")
	if c.res == nil || !c.res.reusable || c.res.kept.Load() {
		t.Fatalf("Result %+v: want a reusable list no caller kept", c.res)
	}
	if len(c.res.Mementos) != 900 || c.res.Mementos[0].URIM != "" {
		t.Fatalf("the answered request's merged list (%d mementos, first %q) was not given back", len(c.res.Mementos), c.res.Mementos[0].URIM)
	}
	urir := "http://site.example/400/looked-up"
	ans, err := ag.Lookup(context.Background(), FamilyTimeMap, urir, time.Time{}, CacheControl{})
	if err != nil || ans.Result == nil || !ans.Result.kept.Load() {
		t.Fatalf("Lookup: %v, %+v: want a kept Result", err, ans)
	}
	res, err := ag.Search(context.Background(), TimeMapCache, "http://site.example/350/searched", time.Time{})
	if err != nil || !res.kept.Load() {
		t.Fatalf("Search: %v: want a kept Result", err)
	}
	want := map[string]string{}
	var urirs []string
	for i := range 8 {
		u := fmt.Sprintf("http://site.example/%d/shared/%d", 250+37*i, i)
		urirs = append(urirs, u)
		_, want[u] = get(u)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 24 {
				u := urirs[(g+i)%len(urirs)]
				c := &resultCatcher{ResponseRecorder: httptest.NewRecorder()}
				h.ServeHTTP(c, httptest.NewRequest("GET", "/timemap/link/"+u, nil))
				if got := c.Body.String(); c.Code != http.StatusOK || got != want[u] {
					t.Errorf("%s: status %d, %d bytes, want 200 and the %d bytes of the same request alone", u, c.Code, len(got), len(want[u]))
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range []struct {
		res *Result
		n   int
	}{{ans.Result, 400}, {res, 350}} {
		var w []memento.Memento
		for _, id := range []string{"a1", "a2", "a3"} {
			w = append(w, reuseMementos(id, k.res.URIR, k.n)...)
		}
		w = merge(w, func(id string) int { return int(id[1] - '0') })
		if len(k.res.Mementos) != len(w) {
			t.Fatalf("%s: %d mementos, want %d", k.res.URIR, len(k.res.Mementos), len(w))
		}
		for i := range w {
			if k.res.Mementos[i].URIM != w[i].URIM || !k.res.Mementos[i].Datetime.Equal(w[i].Datetime) {
				t.Fatalf("%s: memento %d is %+v, want %+v", k.res.URIR, i, k.res.Mementos[i], w[i])
			}
		}
	}
}

// TestSearchNeverWritesUpstreamLists: a search never writes into a list an
// Upstream other than HTTPUpstream returned, nor past its end: the one
// list such an Upstream holds, given to three archives and to many
// searches at once (TimeMap and TimeGate services), unsorted, with a
// duplicate, a URI-M to escape and room past its length, keeps every
// byte, while each answer is sorted, deduplicated (one copy of each
// URI-M the three archives share) and names an archive
// (run it under -race).
func TestSearchNeverWritesUpstreamLists(t *testing.T) {
	for _, shape := range []string{"unsorted with a duplicate", "sorted", "a URI-M to escape"} {
		t.Run(shape, func(t *testing.T) {
			base := reuseMementos("a0", "http://site.example/", 30)
			for i := range base {
				base[i].Archive = "" // as an Upstream returns them
			}
			held := make([]memento.Memento, len(base), len(base)+5)
			copy(held, base)
			distinct := len(held)
			switch shape {
			case "unsorted with a duplicate":
				slices.Reverse(held)
				held[3], held[17] = held[17], held[3]
				held[5] = held[9]
				distinct--
			case "a URI-M to escape":
				held[4].URIM = "http://a0.example/web/x y"
			}
			room := held[len(held):cap(held)]
			for i := range room {
				room[i] = memento.Memento{URIM: fmt.Sprintf("http://room.example/%d", i), Archive: "room"}
			}
			want := slices.Clone(held[:cap(held)])
			ag := newAggregator(t, Options{Archives: []Archive{
				{ID: "a1", TimeMap: "http://a1/", TimeGate: "http://a1/tg/"},
				{ID: "a2", TimeMap: "http://a2/", TimeGate: "http://a2/tg/"},
				{ID: "a3", TimeMap: "http://a3/"},
			}, Upstream: fixedUpstream{held}})
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for range 5 {
						s := []Service{TimeMapCache, TimeGateDynamic}[g%2]
						res, err := ag.Search(context.Background(), s, "http://site.example/", time.Time{})
						if err != nil {
							t.Error(err)
							return
						}
						if n := len(res.Mementos); n != distinct {
							t.Errorf("%s: %d mementos, want the %d distinct ones", s, n, distinct)
							return
						}
						for i, m := range res.Mementos {
							if m.Archive != "a1" && m.Archive != "a2" && m.Archive != "a3" {
								t.Errorf("%s: memento %d names archive %q", s, i, m.Archive)
								return
							}
							if i > 0 && m.Datetime.Before(res.Mementos[i-1].Datetime) {
								t.Errorf("%s: memento %d out of order", s, i)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			if got := held[:cap(held)]; !reflect.DeepEqual(got, want) {
				for i := range got {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("the upstream's memento %d (of %d, the list's length %d) is now %+v, was %+v", i, len(got), len(held), got[i], want[i])
					}
				}
			}
		})
	}
}
