package aggregator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/surt"
)

// hxpx is the map key of a URI-R: its SURT without the query.
func hxpx(t testing.TB, urir string) string {
	t.Helper()
	k, err := surt.Canonicalize(urir)
	if err != nil {
		t.Fatalf("canonicalize %q: %v", urir, err)
	}
	return surt.HxPx(k)
}

// writeMap writes a MementoMap file (UKVS lines "key frequency", sorted
// byte-wise) and returns its path.
func writeMap(t testing.TB, dir, name string, lines map[string]string) string {
	t.Helper()
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\n")
	for _, k := range keys {
		b.WriteString(k + " " + lines[k] + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// holdingsMap builds the map an archive would publish for its holdings:
// exact HxPx keys, rolled up into a host wildcard when the archive holds
// more than rollup paths of a host, with exclusion lines (frequency 0) for
// paths of such a host that it does not hold but others do.
func holdingsMap(t testing.TB, held map[string][]memento.Memento, allPaths map[string][]string, rollup int) map[string]string {
	lines := map[string]string{}
	perHost := map[string][]string{}
	for urir, ms := range held {
		k := hxpx(t, urir)
		host := k[:strings.Index(k, ")/")+1]
		perHost[host] = append(perHost[host], urir)
		lines[k] = fmt.Sprint(len(ms))
	}
	for host, urirs := range perHost {
		if len(urirs) <= rollup {
			continue
		}
		total := 0
		mine := map[string]bool{}
		for _, u := range urirs {
			k := hxpx(t, u)
			mine[k] = true
			delete(lines, k)
			total += len(held[u])
		}
		lines[host+"/*"] = fmt.Sprint(total)
		for _, u := range allPaths[host] {
			if k := hxpx(t, u); !mine[k] {
				lines[k] = "0"
			}
		}
	}
	return lines
}

// TestRoutingPropertyRecall checks the routing contract over generated
// holdings: routing by MementoMaps returns exactly the mementos that
// asking every archive returns (recall 1.0), and reports the share of
// upstream requests it saved.
func TestRoutingPropertyRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2026))
	const nArchives, nHosts = 8, 120
	f := newFake()
	ids := make([]string, nArchives)
	for i := range ids {
		ids[i] = fmt.Sprintf("arc%d", i)
		f.holdings[ids[i]] = map[string][]memento.Memento{}
	}
	allPaths := map[string][]string{} // host key → URI-Rs on it
	var universe []string
	for h := range nHosts {
		host := fmt.Sprintf("site%03d.example.%s", h, []string{"com", "org", "co.uk", "de"}[h%4])
		for p := range 1 + rng.IntN(15) {
			urir := fmt.Sprintf("http://%s/page/%d.html", host, p)
			if p%5 == 4 {
				urir += fmt.Sprintf("?id=%d&x=y", p)
			}
			universe = append(universe, urir)
			k := hxpx(t, urir)
			hk := k[:strings.Index(k, ")/")+1]
			allPaths[hk] = append(allPaths[hk], urir)
			for i, id := range ids {
				// A few big archives and a long tail of small ones.
				if rng.Float64() < 0.5/float64(i+1) {
					n := 1 + rng.IntN(3)
					for j := range n {
						dt := time.Date(1996+rng.IntN(28), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), j, 0, 0, 0, time.UTC)
						f.holdings[id][urir] = append(f.holdings[id][urir], memento.Memento{URIM: fmt.Sprintf("http://%s/%s/%s", id, dt.Format("20060102150405"), urir), Datetime: dt})
					}
				}
			}
		}
	}
	dir := t.TempDir()
	var archives []Archive
	for _, id := range ids {
		archives = append(archives, Archive{ID: id, TimeMap: "http://" + id + "/timemap/"})
	}
	all := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1})
	routed := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1, MapMaxAge: 24 * time.Hour})
	for i, id := range ids {
		path := writeMap(t, dir, id+".map", holdingsMap(t, f.holdings[id], allPaths, 4))
		m, closer, err := OpenMementoMap(path)
		if err != nil {
			t.Fatal(err)
		}
		loaded := time.Now()
		switch i {
		case 6: // a stale map must not be trusted
			loaded = loaded.Add(-48 * time.Hour)
		case 7: // an unreadable map must not be trusted
			m = MapLookupFunc(func(string) (int64, error) { return 0, errors.New("map file unreadable") })
		}
		if err := routed.SetMap(id, m, closer, loaded); err != nil {
			t.Fatal(err)
		}
	}
	// Lookups: every held or known URI-R, the same with another query, and
	// unknown paths and hosts.
	lookups := append([]string(nil), universe...)
	for i := range 200 {
		lookups = append(lookups,
			fmt.Sprintf("http://site%03d.example.com/other/%d", i%nHosts, i),
			fmt.Sprintf("http://unknown%d.example.net/", i))
	}
	mementos := 0
	for _, urir := range lookups {
		want, err := all.Search(context.Background(), TimeMapCache, urir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := routed.Search(context.Background(), TimeMapCache, urir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want.Mementos, got.Mementos); d != "" {
			t.Fatalf("%s: routed result differs (-all +routed):\n%s", urir, d)
		}
		mementos += len(want.Mementos)
	}
	var sent, saved int64
	for _, s := range routed.Stats() {
		sent += s.Sent
		saved += s.Saved
		if (s.Archive == "arc6" || s.Archive == "arc7") && s.Saved != 0 {
			t.Errorf("%s: a stale or unreadable map skipped %d requests", s.Archive, s.Saved)
		}
	}
	if mementos == 0 || saved == 0 {
		t.Fatalf("degenerate data: %d mementos, %d saved", mementos, saved)
	}
	t.Logf("routing: %d lookups, %d mementos, recall 1.0; upstream requests %d sent + %d saved = %d, saved %.1f%% (8 archives, 2 of them with untrusted maps)",
		len(lookups), mementos, sent, saved, sent+saved, 100*float64(saved)/float64(sent+saved))
}

// TestRoutingOverHTTP: archives on 127.0.0.1 with maps from a file, a URL
// and discovery at /.well-known/mementomap; a skipped archive gets no
// request, and an archive whose map is missing is asked.
func TestRoutingOverHTTP(t *testing.T) {
	urir := "http://example.com/a"
	hold := map[string][]time.Time{urir: times(t, "20100101000000")}
	mapHolding := []byte("com,example)/a 1\n")
	mapOther := []byte("org,other)/* 10\n")
	holder := newArchive(t, archivetest.Config{Holdings: hold, MementoMap: mapHolding})
	fileSkip := newArchive(t, archivetest.Config{})
	urlSkip := newArchive(t, archivetest.Config{MementoMap: mapOther})
	noMap := newArchive(t, archivetest.Config{}) // discovery finds nothing: asked
	linked := newArchive(t, archivetest.Config{MementoMap: mapOther, MapByLink: true})
	dir := t.TempDir()
	filePath := filepath.Join(dir, "file.map")
	if err := os.WriteFile(filePath, mapOther, 0o644); err != nil {
		t.Fatal(err)
	}
	archives := []Archive{
		entry("holder", holder), entry("fileSkip", fileSkip), entry("urlSkip", urlSkip), entry("noMap", noMap), entry("linked", linked),
	}
	archives[0].Map = MapSource{Discover: true}
	archives[1].Map = MapSource{File: filePath}
	archives[2].Map = MapSource{URL: urlSkip.URL + "/.well-known/mementomap"}
	archives[3].Map = MapSource{Discover: true}
	archives[4].Map = MapSource{Discover: true} // found through rel="mementomap"
	ag := newAggregator(t, Options{Archives: archives, MapDir: dir})
	err := ag.LoadMaps(context.Background())
	if !errors.Is(err, ErrNoMap) {
		t.Errorf("LoadMaps: %v, want ErrNoMap for noMap", err)
	}
	for _, a := range []*archivetest.Archive{holder, fileSkip, urlSkip, noMap, linked} {
		a.ResetLog() // forget the discovery requests
	}
	got := map[string]Status{}
	for _, d := range ag.Route(TimeMapCache, urir) {
		got[d.Archive] = d.Status
	}
	want := map[string]Status{"holder": 0, "fileSkip": StatusSkippedByMap, "urlSkip": StatusSkippedByMap, "noMap": 0, "linked": StatusSkippedByMap}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("route (-want +got):\n%s", d)
	}
	resp, body := do(t, ag.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if fileSkip.Count("timemap") != 0 || urlSkip.Count("timemap") != 0 {
		t.Errorf("skipped archives were asked: %d, %d", fileSkip.Count("timemap"), urlSkip.Count("timemap"))
	}
	if noMap.Count("timemap") != 1 || holder.Count("timemap") != 1 {
		t.Errorf("routed archives: holder %d, noMap %d requests, want 1 each", holder.Count("timemap"), noMap.Count("timemap"))
	}
	st := ag.Stats()
	if st[1].Saved != 1 || st[2].Saved != 1 || st[0].Sent != 1 {
		t.Errorf("stats: %+v", st)
	}
	// Swapping in no map makes the archive asked again.
	if err := ag.SetMap("fileSkip", nil, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if d := ag.Route(TimeMapCache, urir)[1]; d.Status != 0 {
		t.Errorf("after removing the map: %+v", d)
	}
}

// A map fetched from a URL is fetched again on schedule and swapped in.
func TestMapRefreshSwapsMap(t *testing.T) {
	urir := "http://example.com/a"
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000")}, MementoMap: []byte("org,other)/* 1\n")})
	a := entry("a", arc)
	a.Map = MapSource{Discover: true, Refresh: 20 * time.Millisecond}
	dir := t.TempDir()
	ag := newAggregator(t, Options{Archives: []Archive{a}, MapDir: dir})
	if err := ag.LoadMaps(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := ag.Route(TimeMapCache, urir)[0]; d.Status != StatusSkippedByMap {
		t.Fatalf("before refresh: %+v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ag.StartMapRefresh(ctx)
	arc.SetMementoMap([]byte("com,example)/a 3\n"))
	deadline := time.Now().Add(5 * time.Second)
	for ag.Route(TimeMapCache, urir)[0].Status != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the refreshed map was never swapped in")
		}
		time.Sleep(10 * time.Millisecond)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "a.mementomap" {
		t.Errorf("map folder holds %v, want only a.mementomap (temporary files renamed or removed)", entries)
	}
}

// A rule leaving one archive with timegate@redirect="yes" sends the client
// straight to that archive's TimeGate; "refuse" gives 404.
func TestTimeGateRedirectOverride(t *testing.T) {
	arc := newArchive(t, archivetest.Config{})
	yes, refuse, other := entry("wiki", arc), entry("refuser", arc), entry("other", arc)
	yes.Redirect, refuse.Redirect = "yes", "refuse"
	rules, err := ParseRules(strings.NewReader(`{"timegate_dynamicdefault": "other",
	  "rules": [{"url": "wikipedia\\.org/", "timegate_dynamic": "wiki"}, {"url": "refused\\.example/", "timegate_dynamic": "refuser"}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: []Archive{yes, refuse, other}, Rules: rules})
	resp, _ := do(t, ag.Handler(), "GET", "/timegate/http://en.wikipedia.org/wiki/Go")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != arc.TimeGatePrefix()+"http://en.wikipedia.org/wiki/Go" {
		t.Errorf("redirect=yes: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = do(t, ag.Handler(), "GET", "/timegate/http://refused.example/")
	if resp.StatusCode != 404 {
		t.Errorf("redirect=refuse: %d", resp.StatusCode)
	}
	if n := arc.Count(""); n != 0 {
		t.Errorf("%d upstream requests, want none", n)
	}
}

func TestOpenMementoMap(t *testing.T) {
	path := writeMap(t, t.TempDir(), "m", map[string]string{
		"com,example)/a":   "2",
		"com,example)/b/*": "10",
		"com,example)/b/x": "0",
		"org,other)/*":     "5",
		"net,wide,*":       "7",
	})
	m, closer, err := OpenMementoMap(path)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	for _, tc := range []struct {
		urir string
		want int64
	}{
		{"http://example.com/a", 1},
		{"https://www.example.com/a?q=1", 1}, // HxPx: the query is cut, www. dropped
		{"http://example.com/b/y/z", 1},      // wildcard
		{"http://example.com/b/x", 0},        // exclusion line under a wildcard
		{"http://example.com/c", 0},
		{"http://other.org/anything", 1},     // path wildcard of one host
		{"http://sub.other.org/anything", 0}, // ... not of its subdomains
		{"http://a.b.wide.net/x", 1},         // host wildcard: every subdomain
		{"http://absent.example.net/", 0},
	} {
		got, err := m.Frequency(tc.urir)
		if err != nil || got != tc.want {
			t.Errorf("Frequency(%q) = %d, %v; want %d", tc.urir, got, err, tc.want)
		}
	}
}
