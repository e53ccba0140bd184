package aggregator

import (
	"net/http"
	"strings"
	"testing"
)

// TestErrorAnswersCapEchoedText: error answers echo a 100 KiB URI-R,
// path part, datetime or header value cut to MaxShownTarget bytes with
// the "...[N bytes in all]" marker, as one line (control bytes as %XX);
// a URI-R NormalizeURIR refuses is echoed in its reason, the whole line
// cut so; the block page escapes the URI-R for HTML.
func TestErrorAnswersCapEchoedText(t *testing.T) {
	long := strings.Repeat("a", 100<<10)
	bl, err := ParseBlacklist(strings.NewReader("evil.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://127.0.0.1:1/tm/", TimeGate: "http://127.0.0.1:1/tg/"}}, Blacklist: bl})
	h := ag.Handler()
	for _, c := range []struct {
		name, target string
		header       []string
		status       int
		marker       bool // the echoed text is over MaxShownTarget: cut with the marker
	}{
		{"long URI-R", "/timemap/link/http://example.com/" + long, nil, 400, false},
		{"long scheme", "/timemap/link/ftp" + long + "://example.com/", nil, 400, true},
		{"long host", "/timemap/link/http://" + long + "!/", nil, 400, true},
		{"long port", "/timemap/link/http://example.com:" + strings.Repeat("9", 100<<10) + "/", nil, 400, true},
		{"long format", "/timemap/" + long + "/http://example.com/", nil, 400, true},
		{"long path", "/" + long, nil, 404, true},
		{"long Accept-Datetime", "/timegate/http://example.com/", []string{"Accept-Datetime", long}, 400, true},
		{"long registry format", "/archives/" + long, nil, 404, true},
		{"long datetime", "/memento/" + long + "/http://example.com/", nil, 400, true},
		{"blocked host", "/timemap/link/http://evil.example/%3Cscript%3E" + long[:900], nil, 403, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, h, http.MethodGet, c.target, c.header...)
			if resp.StatusCode != c.status || len(body) > MaxShownTarget+512 || c.marker && !strings.Contains(body, "bytes in all]") {
				t.Errorf("%d, %d bytes (marker %v); want %d, at most %d bytes, marker %v:\n%.300s",
					resp.StatusCode, len(body), strings.Contains(body, "bytes in all]"), c.status, MaxShownTarget+512, c.marker, body)
			}
			if strings.Contains(body, "<script") {
				t.Errorf("the answer holds an unescaped <script:\n%.300s", body)
			}
		})
	}
	for in, want := range map[string]string{"a\r\nb": "a%0D%0Ab", "\x00\x7f": "%00%7F", "plain": "plain"} {
		if got := shownText(in); got != want {
			t.Errorf("shownText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := shownText(long + "\n"); !strings.HasPrefix(got, long[:MaxShownTarget]+"...[") || strings.Contains(got, "\n") {
		t.Errorf("shownText of 100 KiB and a line end: %d bytes, want %d and the marker", len(got), MaxShownTarget)
	}
}
