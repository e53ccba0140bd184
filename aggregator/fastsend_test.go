package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// HTTPUpstream's own requests on the fast transport (no http.Client)
// give what they give through http.Client: redirects followed or not
// (relative and absolute Locations, a loop past MaxRedirects, a Location
// that does not parse, a 3xx without Location, a hop to a host the allow
// list refuses), the Referer and Accept-Datetime sent on each hop, the
// same mementos, reasons and error texts, for TimeMaps, TimeGates and
// the HEAD of a TimeGate's Location.
func TestDirectSendAsClient(t *testing.T) {
	const tm = "<http://a.example/web/20100101000000/http://x/>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\"\n"
	var addr string // the archive's host:port, set before its first request
	answer := func(_, _ int, line string) (string, bool) {
		path := strings.Fields(line)[1]
		ok := func(body string) string {
			return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/link-format\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		}
		redirect := func(code int, loc string) string {
			body := "moved"
			return fmt.Sprintf("HTTP/1.1 %d Moved\r\nLocation: %s\r\nContent-Length: %d\r\n\r\n%s", code, loc, len(body), body)
		}
		switch {
		case strings.HasPrefix(path, "/tm/plain/"):
			return ok(tm), false
		case strings.HasPrefix(path, "/tm/chain/"):
			return redirect(301, "/tm/chain2/"+strings.TrimPrefix(path, "/tm/chain/")), false
		case strings.HasPrefix(path, "/tm/chain2/"):
			return redirect(307, "http://"+addr+"/tm/plain/x"), false
		case strings.HasPrefix(path, "/tm/loop/"):
			return redirect(302, path), false
		case strings.HasPrefix(path, "/tm/badloc/"):
			return "HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n", false
		case strings.HasPrefix(path, "/tm/noloc/"):
			return "HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n", false
		case strings.HasPrefix(path, "/tm/away/"):
			return redirect(302, "http://elsewhere.invalid/tm/plain/x"), false
		case strings.HasPrefix(path, "/tm/html/"):
			return "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\n<html>", false
		case strings.HasPrefix(path, "/tm/gone/"):
			return "HTTP/1.1 410 Gone\r\nContent-Length: 0\r\n\r\n", false
		case strings.HasPrefix(path, "/tg/"):
			return "HTTP/1.1 302 Found\r\nVary: accept-datetime\r\nLocation: /memento/1\r\nContent-Length: 0\r\n\r\n", false
		case strings.HasPrefix(path, "/memento/"):
			return "HTTP/1.1 200 OK\r\nMemento-Datetime: Fri, 01 Jan 2010 00:00:00 GMT\r\nContent-Length: 3\r\n\r\nabc", false
		}
		return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false
	}
	type run struct {
		results []string
		heads   []string
	}
	do := func(direct bool) run {
		a := newRawArchive(t, answer)
		addr = a.ln.Addr().String()
		arc := &Archive{ID: "a", TimeMap: a.url() + "/tm/", TimeGate: a.url() + "/tg/"}
		c := &http.Client{Transport: &http.Transport{}}
		if !direct {
			c.Timeout = time.Hour // through http.Client
		}
		up := &HTTPUpstream{Client: c, MaxRedirects: 3}
		if (up.direct() != nil) != direct {
			t.Fatalf("direct %v: direct() %v", direct, up.direct())
		}
		var r run
		for _, kind := range []string{"plain/", "chain/", "loop/", "badloc/", "noloc/", "away/", "html/", "gone/", "none/"} {
			ms, n, err := up.TimeMap(context.Background(), arc, kind+"http://x.example/")
			r.results = append(r.results, fmt.Sprintf("timemap %s: %v %d %s %v", kind, ms, n, reasonOf(err), strings.ReplaceAll(fmt.Sprint(err), a.url(), "ARCHIVE")))
		}
		ms, n, err := up.TimeGate(context.Background(), arc, "http://x.example/", time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC))
		r.results = append(r.results, strings.ReplaceAll(fmt.Sprintf("timegate: %v %d %s %v", ms, n, reasonOf(err), err), a.url(), "ARCHIVE"))
		a.mu.Lock()
		for _, h := range a.heads {
			r.heads = append(r.heads, strings.ReplaceAll(h, a.ln.Addr().String(), "ARCHIVE"))
		}
		a.mu.Unlock()
		return r
	}
	direct, client := do(true), do(false)
	t.Logf("%s", strings.Join(direct.results, "\n"))
	for i := range max(len(direct.results), len(client.results)) {
		d, c := at(direct.results, i), at(client.results, i)
		if d != c {
			t.Errorf("direct  %s\nclient  %s", d, c)
		}
	}
	if strings.Join(direct.heads, "") != strings.Join(client.heads, "") {
		t.Errorf("request heads differ:\ndirect %q\nclient %q", direct.heads, client.heads)
	}
	if !strings.Contains(strings.Join(direct.heads, ""), "Referer: http://ARCHIVE/tm/chain/") {
		t.Errorf("no Referer on a redirect hop: %q", direct.heads)
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}
