package aggregator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestErrorAnswersNoSniff: over a real 127.0.0.1 server, the error
// answers that echo request text (Accept-Datetime, a datetime path
// segment, a format) send X-Content-Type-Options: nosniff, keep the echo
// within MaxShownTarget and its marker, and /memento/FORMAT/DATETIME/URI-R
// with an unknown FORMAT is an unknown format, not a bad datetime.
func TestErrorAnswersNoSniff(t *testing.T) {
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://127.0.0.1:1/tm/", TimeGate: "http://127.0.0.1:1/tg/"}}})
	srv := httptest.NewServer(ag.Handler())
	defer srv.Close()
	c := &http.Client{Timeout: 10 * time.Second}
	long := strings.Repeat("<b>", 10<<10)
	for _, tc := range []struct {
		name, path, header, want string
	}{
		{"Accept-Datetime", "/timegate/http://example.com/", "<script>alert(1)</script>" + long, "Malformed Accept-Datetime: <script>"},
		{"datetime", "/memento/%3Cscript%3E" + long + "/http://example.com/", "", "Malformed datetime: %3Cscript%3E"},
		{"format", "/memento/%3Cscript%3E/2020/http://example.com/", "", "Unknown format: %3Cscript%3E"},
		{"long format", "/memento/" + strings.Repeat("x", 10<<10) + "/2020/http://example.com/", "", "Unknown format: xxx"},
		{"timemap format", "/timemap/%3Cscript%3E/http://example.com/", "", "Malformed request: /timemap/%3Cscript%3E"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.header != "" {
				req.Header.Set("Accept-Datetime", tc.header)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body := string(b)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %.200s", resp.StatusCode, body)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
			if !strings.HasPrefix(body, tc.want) {
				t.Errorf("answer %.200q, want it to start %q", body, tc.want)
			}
			if len(body) > MaxShownTarget+512 {
				t.Errorf("answer of %d bytes, want the echo cut to %d", len(body), MaxShownTarget)
			}
		})
	}
}
