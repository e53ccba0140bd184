package aggregator_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

func ExampleParseRules() {
	rules := `{
	  "timegate_dynamicdefault": "ia,arquivo.pt",
	  "rules": [{"url": "\\.uk/", "timegate_dynamic": "timegate_dynamicdefault,ukwa,nowhere"}]
	}`
	known := map[string]bool{"ia": true, "arquivo.pt": true, "ukwa": true}
	r, err := aggregator.ParseRules(strings.NewReader(rules), func(id string) bool { return known[id] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Archives(aggregator.TimeGateDynamic, "https://www.bl.uk/collections"))
	fmt.Println(r.Archives(aggregator.TimeGateDynamic, "http://example.com/"))
	fmt.Println("unknown:", r.Unknown())
	// Output:
	// [ia arquivo.pt ukwa]
	// [ia arquivo.pt]
	// unknown: [nowhere]
}

func ExampleParseBlacklist() {
	bl, err := aggregator.ParseBlacklist(strings.NewReader("# one domain a line\nexample.com\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range []string{"http://example.com/", "https://www.example.com/a", "http://example.org/"} {
		fmt.Println(u, bl.Blocks(u))
	}
	// Output:
	// http://example.com/ true
	// https://www.example.com/a true
	// http://example.org/ false
}

func ExampleParseArchivesJSON() {
	list := `[
	  {"id": "web.archive.org", "name": "Internet Archive", "timemap": "https://web.archive.org/web/timemap/link/", "timegate": "https://web.archive.org/web/"},
	  {"id": "pastpages.org", "name": "PastPages", "timemap": "http://www.pastpages.org/timemap/link/", "timegate": "http://www.pastpages.org/timegate/", "ignore": true}
	]`
	as, err := aggregator.ParseArchivesJSON(strings.NewReader(list))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range as {
		fmt.Println(a.ID, a.TimeMap+"http://example.com/")
	}
	// Output:
	// web.archive.org https://web.archive.org/web/timemap/link/http://example.com/
}

// An aggregator over two local archives, one of them down: the TimeMap
// lists the mementos of the other, and Archive-Failures names the failure.
func ExampleAggregator_Handler() {
	at := func(s string) time.Time { t, _ := time.Parse("20060102", s); return t }
	up := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": {at("20100101"), at("20200101")},
	}})
	defer up.Close()
	down := archivetest.New(archivetest.Config{Fault: archivetest.FaultStatus, Status: 503})
	defer down.Close()

	ag, err := aggregator.New(&aggregator.Options{Archives: []aggregator.Archive{
		{ID: "up", TimeMap: up.TimeMapPrefix(), TimeGate: up.TimeGatePrefix()},
		{ID: "down", TimeMap: down.TimeMapPrefix(), TimeGate: down.TimeGatePrefix()},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	rec := httptest.NewRecorder()
	ag.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/http://example.com/", nil))
	fmt.Println(rec.Code, rec.Header().Get("X-Memento-Count"), rec.Header().Get("Archive-Failures"))
	// Output: 200 2 down=status-503
}

// Search reports what each archive did.
func ExampleAggregator_Search() {
	up := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": {time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)},
	}})
	defer up.Close()
	empty := archivetest.New(archivetest.Config{})
	defer empty.Close()
	ag, err := aggregator.New(&aggregator.Options{Archives: []aggregator.Archive{
		{ID: "up", TimeMap: up.TimeMapPrefix()},
		{ID: "empty", TimeMap: empty.TimeMapPrefix()},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	res, err := ag.Search(context.Background(), aggregator.TimeMapCache, "http://example.com/", time.Time{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Outcomes {
		fmt.Println(o.Archive, o.Status, o.Mementos)
	}
	fmt.Println(len(res.Mementos), res.Mementos[0].Datetime.Format(time.DateOnly))
	// Output:
	// up found 1
	// empty none 0
	// 1 2010-01-01
}

// Lookup follows the Time Travel cache scenarios: the first request for a
// URI-R searches, the next is served from the cache; only-if-cached never
// searches.
func ExampleAggregator_Lookup() {
	up := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": {time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)},
	}})
	defer up.Close()
	store, err := memorycache.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	ag, err := aggregator.New(&aggregator.Options{
		Archives: []aggregator.Archive{{ID: "up", TimeMap: up.TimeMapPrefix(), TimeGate: up.TimeGatePrefix()}},
		Cache:    store,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ag.Close()
	ctx := context.Background()
	for _, r := range []struct {
		urir string
		cc   aggregator.CacheControl
	}{
		{"http://example.com/", aggregator.CacheControl{}},
		{"https://example.com/", aggregator.CacheControl{}},
		{"http://new.example/", aggregator.CacheControl{OnlyIfCached: true}},
	} {
		a, err := ag.Lookup(ctx, aggregator.FamilyTimeMap, r.urir, time.Time{}, r.cc)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.urir, a.Status, a.Scenario, len(a.Mementos), up.Count("timemap"))
	}
	// Output:
	// http://example.com/ 200 unknown 1 1
	// https://example.com/ 200 fresh 1 1
	// http://new.example/ 504 only-if-cached 0 1
}
