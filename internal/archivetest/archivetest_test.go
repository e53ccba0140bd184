package archivetest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestArchive(t *testing.T) {
	d := time.Date(2010, 1, 2, 3, 4, 5, 0, time.UTC)
	a := New(Config{PageSize: 1, Holdings: map[string][]time.Time{"http://x/?a=%26": {d, d.Add(time.Hour)}}})
	defer a.Close()
	get := func(path string, hdr ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", a.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("/timemap/link/http://x/?a=%26")
	if resp.StatusCode != 200 || strings.Count(body, `rel="memento"`) != 1 || !strings.Contains(body, `/tmpage/2/http://x/?a=%26>; rel="timemap"`) {
		t.Errorf("page 1: %d\n%s", resp.StatusCode, body)
	}
	resp, body = get("/tmpage/2/http://x/?a=%26")
	if resp.StatusCode != 200 || !strings.Contains(body, "20100102040405") {
		t.Errorf("page 2: %d\n%s", resp.StatusCode, body)
	}
	resp, _ = get("/timegate/http://x/?a=%26", "Accept-Datetime", "Sat, 02 Jan 2010 03:00:00 GMT")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != a.URIM("http://x/?a=%26", d) {
		t.Errorf("timegate: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ = get("/web/20100102030405/http://x/?a=%26"); resp.Header.Get("Memento-Datetime") != "Sat, 02 Jan 2010 03:04:05 GMT" {
		t.Errorf("memento: %v", resp.Header)
	}
	if resp, _ = get("/timemap/link/http://nothing/"); resp.StatusCode != 404 {
		t.Errorf("absent: %d", resp.StatusCode)
	}
	a.SetFault(FaultStatus)
	if resp, _ = get("/timemap/link/http://x/?a=%26"); resp.StatusCode != 503 {
		t.Errorf("fault status: %d", resp.StatusCode)
	}
	a.SetFault(FaultWrongContentType)
	if resp, _ = get("/timemap/link/http://x/?a=%26"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("wrong type: %q", resp.Header.Get("Content-Type"))
	}
	a.SetFault(FaultRedirectLoop)
	if resp, _ = get("/timemap/link/http://x/"); resp.StatusCode != 302 || resp.Header.Get("Location") != a.URL+"/timemap/link/http://x/" {
		t.Errorf("loop: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	a.SetFault(FaultReset)
	if _, err := http.Get(a.URL + "/timemap/link/http://x/"); err == nil {
		t.Error("reset: no error")
	}
	// The reset request may be retried once by the client's transport
	// (a GET on a reused keep-alive connection).
	if n := a.Count("timemap"); n != 6 && n != 7 {
		t.Errorf("Count(timemap) = %d, want 6 or 7", n)
	}
	if got := a.Requests()[0].RawPath; got != "/timemap/link/http://x/?a=%26" {
		t.Errorf("raw path %q", got)
	}
	for f := FaultNone; f <= FaultHang; f++ {
		if strings.HasPrefix(f.String(), "fault(") {
			t.Errorf("fault %d has no name", f)
		}
	}
}

func TestConnsAndPeakInFlight(t *testing.T) {
	a := New(Config{Latency: 100 * time.Millisecond})
	defer a.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	get := func() {
		resp, err := client.Get(a.URL + "/timemap/link/http://nothing/")
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	done := make(chan struct{})
	for range 4 {
		go func() { get(); done <- struct{}{} }()
	}
	for range 4 {
		<-done
	}
	if p := a.PeakInFlight(); p < 2 || p > 4 {
		t.Errorf("PeakInFlight = %d after 4 concurrent requests, want 2 to 4", p)
	}
	conns := a.Conns()
	if conns < 2 || conns > 4 {
		t.Errorf("Conns = %d after 4 concurrent requests, want 2 to 4", conns)
	}
	get() // sequential: reuses an idle connection
	if a.Conns() != conns {
		t.Errorf("a sequential request opened a connection: %d, was %d", a.Conns(), conns)
	}
	a.ResetLog()
	if p := a.PeakInFlight(); p != 0 {
		t.Errorf("PeakInFlight after ResetLog = %d, want 0", p)
	}
}
