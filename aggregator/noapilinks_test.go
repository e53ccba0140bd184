package aggregator

import (
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// TestNoAPILinks: with Options.NoAPILinks the TimeMaps and memento
// descriptions in each format name no link of this API (self, timemap,
// timegate; in JSON and CDXJ the keys and lines naming them) and keep the
// original and memento links; without it they link to BaseURL. A
// link-format answer then ends with its last memento, without a comma.
func TestNoAPILinks(t *testing.T) {
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{"http://ex.com/": times(t, "20100101000000", "20110101000000")}})
	targets := []string{"/timemap/link/http://ex.com/", "/timemap/json/http://ex.com/", "/timemap/cdxj/http://ex.com/",
		"/memento/link/2010/http://ex.com/", "/memento/json/2010/http://ex.com/", "/memento/cdxj/2010/http://ex.com/"}
	for _, no := range []bool{true, false} {
		ag := newAggregator(t, Options{Archives: []Archive{entry("arc", arc)}, BaseURL: "http://agg.example", NoAPILinks: no})
		for _, target := range targets {
			resp, body := do(t, ag.Handler(), "GET", target)
			if resp.StatusCode != 200 || !strings.Contains(body, arc.URL+"/web/20110101000000/http://ex.com/") {
				t.Fatalf("%s (NoAPILinks %v): %d\n%s", target, no, resp.StatusCode, body)
			}
			api := strings.Contains(body, "http://agg.example/timegate/http://ex.com/")
			if api == no {
				t.Errorf("%s (NoAPILinks %v): link to the API's TimeGate %v\n%s", target, no, api, body)
			}
			if !no {
				continue
			}
			for _, s := range []string{"agg.example", `"self"`, `rel="self"`, "timegate", "timemap", "!id"} {
				if strings.Contains(body, s) {
					t.Errorf("%s: %q in\n%s", target, s, body)
				}
			}
			if strings.Contains(target, "/link/") && (!strings.HasSuffix(body, "GMT\"\n") || strings.HasSuffix(body, ",\n")) {
				t.Errorf("%s: not ending with its last memento:\n%s", target, body)
			}
		}
	}
}
