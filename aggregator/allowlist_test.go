package aggregator

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// canary is a listener on another 127.0.0.1 port that no archive
// configuration names: a request reaching it is the aggregator steered by
// an archive's answer.
type canary struct {
	*httptest.Server
	hits atomic.Int64
}

func newCanary(t testing.TB) *canary {
	c := &canary{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		w.Header().Set("Memento-Datetime", "Mon, 01 Jan 2001 00:00:00 GMT")
		w.Header().Set("Content-Type", "application/link-format")
		fmt.Fprintf(w, "<http://r.example/>; rel=\"original\",\n<%s/m>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"\n", "http://"+r.Host)
	}))
	t.Cleanup(c.Close)
	return c
}

// spellings of the canary's address that resolve to it.
func (c *canary) spellings() []string {
	u, _ := url.Parse(c.URL)
	port := u.Port()
	return []string{c.URL, "http://localhost:" + port, "http://2130706433:" + port, "http://0x7f.1:" + port, "http://[::ffff:127.0.0.1]:" + port}
}

// An archive's answer cannot make the aggregator contact a host that no
// archive configuration names: redirects, rel="timemap" page links, a
// TimeGate's Location and its HEAD, rel="mementomap" discovery. Each
// attempt is refused and counted; the canary listener is never reached.
func TestArchiveAnswersCannotSteerRequests(t *testing.T) {
	can := newCanary(t)
	for _, target := range can.spellings() {
		steer := map[string]func(w http.ResponseWriter, r *http.Request, urir string){
			"timemap_redirect": func(w http.ResponseWriter, r *http.Request, urir string) {
				if strings.HasPrefix(r.RequestURI, "/timegate/") {
					http.NotFound(w, r)
					return
				}
				http.Redirect(w, r, target+"/timemap", http.StatusFound)
			},
			"timemap_page_link": func(w http.ResponseWriter, r *http.Request, urir string) {
				w.Header().Set("Content-Type", "application/link-format")
				fmt.Fprintf(w, "<%s>; rel=\"original\",\n<%s/page2>; rel=\"timemap\"; type=\"application/link-format\",\n<http://127.0.0.1:1/web/1/%s>; rel=\"memento\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"\n", urir, target, urir)
			},
			"timegate_location_head": func(w http.ResponseWriter, r *http.Request, urir string) {
				w.Header().Set("Vary", "accept-datetime")
				w.Header().Set("Location", target+"/memento")
				w.WriteHeader(http.StatusFound)
			},
			"timegate_plain_redirect": func(w http.ResponseWriter, r *http.Request, urir string) {
				http.Redirect(w, r, target+"/tg/"+urir, http.StatusMovedPermanently)
			},
		}
		for name, answer := range steer {
			for uname, up := range map[string]func() Upstream{"HTTPUpstream": func() Upstream { return nil }, "ClientUpstream": func() Upstream { return &ClientUpstream{} }} {
				t.Run(uname+"/"+name+"/"+target, func(t *testing.T) {
					before := can.hits.Load()
					a := newAnsweringArchive(t, answer)
					ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, Upstream: up()})
					for _, s := range []Service{TimeMapCache, TimeGateDynamic} {
						res, err := ag.Search(t.Context(), s, "http://r.example/", time.Time{})
						if err != nil {
							t.Fatal(err)
						}
						if o := res.Outcomes[0]; o.Status == StatusFound {
							t.Errorf("%s: %+v: mementos from a host the aggregator may not contact", s, o)
						}
					}
					if n := can.hits.Load() - before; n != 0 {
						t.Errorf("the canary was contacted %d times", n)
					}
				})
			}
		}
	}
}

// rel="mementomap" discovery may not lead elsewhere either; a map URL the
// configuration names is allowed.
func TestMapDiscoveryCannotSteerRequests(t *testing.T) {
	can := newCanary(t)
	a := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		if r.RequestURI == "/.well-known/mementomap" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Link", "<"+can.URL+"/map>; rel=\"mementomap\"")
		w.WriteHeader(http.StatusOK)
	})
	e := a.entry("a")
	e.Map.Discover = true
	ag := newAggregator(t, Options{Archives: []Archive{e}, MapDir: t.TempDir()})
	if err := ag.LoadMaps(t.Context()); err == nil {
		t.Error("LoadMaps followed a rel=\"mementomap\" link to a host the configuration does not name")
	}
	if n := can.hits.Load(); n != 0 {
		t.Errorf("the canary was contacted %d times", n)
	}
	// A configured map URL is allowed; a redirect from it to elsewhere is not.
	b := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		http.Redirect(w, r, can.URL+"/map", http.StatusFound)
	})
	e = b.entry("b")
	e.Map.URL = b.URL + "/map.mementomap"
	ag = newAggregator(t, Options{Archives: []Archive{e}, MapDir: t.TempDir()})
	if err := ag.LoadMaps(t.Context()); !errors.Is(err, ErrHostNotAllowed) {
		t.Errorf("LoadMaps with a map URL redirecting elsewhere: %v, want ErrHostNotAllowed", err)
	}
	if n := can.hits.Load(); n != 0 || ag.Stats()[0].Refused != 1 {
		t.Errorf("the canary was contacted %d times; %d refused", n, ag.Stats()[0].Refused)
	}
}

// Refusals are counted on the archive whose answer led there; a host the
// archive's configuration names (Archive.Hosts) may be contacted.
func TestAllowListCountsAndArchiveHosts(t *testing.T) {
	can := newCanary(t)
	a := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		w.Header().Set("Vary", "accept-datetime")
		w.Header().Set("Location", can.URL+"/memento")
		w.WriteHeader(http.StatusFound)
	})
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}})
	res, err := ag.Search(t.Context(), TimeGateDynamic, "http://r.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Reason != ReasonHostNotAllowed || o.Class != ClassMalformed {
		t.Errorf("outcome %+v, want a malformed answer refused for its host", o)
	}
	if st := ag.Stats()[0]; st.Refused != 1 || !st.DormantUntil.IsZero() {
		t.Errorf("stats %+v, want 1 refused and the archive awake", st)
	}
	if can.hits.Load() != 0 {
		t.Fatal("the canary was contacted")
	}
	u, _ := url.Parse(can.URL)
	e := a.entry("a")
	e.Hosts = []string{"LOCALHOST.:" + u.Port(), "127.0.0.1:" + u.Port()}
	ag = newAggregator(t, Options{Archives: []Archive{e}})
	res, err = ag.Search(t.Context(), TimeGateDynamic, "http://r.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Status != StatusFound || can.hits.Load() != 1 {
		t.Errorf("with the memento host named in Hosts: %+v, %d canary hits; want the HEAD made and the memento found", o, can.hits.Load())
	}
}

func TestAllowList(t *testing.T) {
	l := NewAllowList([]Archive{
		{ID: "ia", TimeMap: "http://Web.Archive.org./web/timemap/link/", TimeGate: "https://web.archive.org/web/"},
		{ID: "local", TimeMap: "http://127.0.0.1:8080/tm/", Map: MapSource{URL: "https://maps.example:8443/ia.map"}},
		{ID: "today", TimeGate: "http://archive.today/timegate/", Hosts: []string{"archive.ph", "[2001:db8::1]:9000"}},
	})
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://web.archive.org/web/2001/http://r/", true},
		{"https://WEB.archive.org./web/", true},
		{"http://web.archive.org:443/", true},
		{"http://web.archive.org:8080/", false},
		{"http://web..archive.org/", true},
		{"http://archive.org/", false},
		{"http://evil.web.archive.org/", false},
		{"http://127.0.0.1:8080/tm/x", true},
		{"http://2130706433:8080/", true},
		{"http://0x7f.1:8080/", true},
		{"http://127.0.0.1/", false},
		{"http://127.0.0.1:8081/", false},
		{"http://localhost:8080/", false},
		{"https://maps.example:8443/other", true},
		{"https://maps.example/", false},
		{"https://archive.ph/abc", true},
		{"http://archive.today/x", true},
		{"http://[2001:db8::1]:9000/", true},
		{"http://[2001:db8:0::1]:9000/", true},
		{"http://[2001:db8::1]/", false},
		{"ftp://web.archive.org/", false},
		{"file:///etc/passwd", false},
		{"gopher://127.0.0.1:8080/", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Allows(u); got != tc.want {
			t.Errorf("Allows(%s) = %v, want %v", tc.url, got, tc.want)
		}
	}
	if (*AllowList)(nil).Allows(&url.URL{Scheme: "http", Host: "a"}) {
		t.Error("the nil AllowList allows a host")
	}
}

// TestAllowListAllowsWithoutAllocating: the check every upstream request
// (each redirect hop) passes builds its host:port key without a heap
// allocation, for a name, an IPv4 address with a port and an IPv6 one.
func TestAllowListAllowsWithoutAllocating(t *testing.T) {
	l := NewAllowList([]Archive{
		{ID: "ia", TimeMap: "http://web.archive.org/web/timemap/link/"},
		{ID: "local", TimeMap: "http://127.0.0.1:8080/tm/", Hosts: []string{"[2001:db8::1]:9000"}},
	})
	for _, raw := range []string{"http://web.archive.org/web/timemap/link/http://r/", "http://127.0.0.1:8080/tm/http://r/", "http://[2001:db8::1]:9000/x"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Allows(u) {
			t.Fatalf("Allows(%s) = false", raw)
		}
		if n := testing.AllocsPerRun(100, func() { l.Allows(u) }); n != 0 {
			t.Errorf("Allows(%s): %v allocations, want 0", raw, n)
		}
	}
}

func TestArchiveHostsFromJSON(t *testing.T) {
	as, err := ParseArchivesJSON(strings.NewReader(`[{"id":"t","timegate":"http://archive.today/timegate/","hosts":["archive.ph","archive.is:443"]}]`))
	if err != nil || len(as) != 1 || strings.Join(as[0].Hosts, ",") != "archive.ph,archive.is:443" {
		t.Errorf("ParseArchivesJSON: %+v, %v", as, err)
	}
	for _, bad := range []string{"a b", "host:99999", "host:x", "[::1", "", "::1"} {
		_, err := ParseArchivesJSON(strings.NewReader(`[{"id":"t","timegate":"http://a/","hosts":["` + bad + `"]}]`))
		if !errors.Is(err, ErrBadHost) {
			t.Errorf("hosts entry %q: %v, want ErrBadHost", bad, err)
		}
	}
}
