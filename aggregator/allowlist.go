package aggregator

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// ErrHostNotAllowed is returned (wrapped, with the URL) for a request to a
// host the AllowList does not hold: an archive's redirect, page link,
// TimeGate Location or rel="mementomap" link that leads elsewhere.
var ErrHostNotAllowed = errors.New("aggregator: host not allowed")

// AllowList is the set of hosts the aggregator may contact: the hosts of
// its archives' configuration (TimeMap and TimeGate prefixes, MementoMap
// URLs) and the hosts an archive's configuration names (Archive.Hosts).
// Every request the aggregator makes, each hop of a redirect included,
// is checked against it before a connection is made (AllowList.Transport),
// so that an archive's answer (a redirect, a rel="timemap" page link, a
// TimeGate's Location and the HEAD that reads its Memento-Datetime, a
// rel="mementomap" link) cannot make the aggregator ask anything else,
// another port of the same host or the loopback interface included.
//
// Entries are scheme-less host:port pairs with the host in its one
// spelling (NormalizeHost), so that "LOCALHOST.", "127.1" or "0x7f.1" are
// judged as the hosts they name. A configured URL on its scheme's default
// port allows the host on ports 80 and 443 (archives redirect http to
// https); any other port allows that port only. Only http and https URLs
// are allowed. An AllowList is immutable and safe for concurrent use; the
// nil *AllowList allows nothing.
type AllowList struct {
	hosts map[string]struct{}
}

// NewAllowList builds the AllowList of archives: for each, the hosts of
// TimeMap, TimeGate and Map.URL, and every entry of Hosts ("host" for ports
// 80 and 443, or "host:port"). Entries that do not parse are skipped (the
// archive list readers refuse them first).
func NewAllowList(archives []Archive) *AllowList {
	l := &AllowList{hosts: map[string]struct{}{}}
	for _, a := range archives {
		for _, p := range []string{a.TimeMap, a.TimeGate, a.Map.URL} {
			if p == "" {
				continue
			}
			if u, err := url.Parse(p); err == nil {
				l.add(u.Hostname(), u.Port(), u.Scheme)
			}
		}
		for _, h := range a.Hosts {
			host, port, ok := splitAuthority(h)
			if ok {
				l.add(host, port, "")
			}
		}
	}
	return l
}

func (l *AllowList) add(host, port, scheme string) {
	h, err := NormalizeHost(host)
	if err != nil {
		return
	}
	port = strings.TrimLeft(port, "0")
	if port == "" || scheme != "" && port == defaultPort(scheme) {
		l.hosts[hostPort(h, "80")] = struct{}{}
		l.hosts[hostPort(h, "443")] = struct{}{}
		return
	}
	l.hosts[hostPort(h, port)] = struct{}{}
}

// Allows reports whether u is an http or https URL whose host and port
// (the scheme's default when none is given) the list holds.
func (l *AllowList) Allows(u *url.URL) bool {
	if l == nil || u == nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	h, err := NormalizeHost(u.Hostname())
	if err != nil {
		return false
	}
	port := strings.TrimLeft(u.Port(), "0")
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	// The key is built in a stack buffer: the map lookup of string(key)
	// does not allocate (hostPort's spelling, without its string).
	var buf [128]byte
	key := buf[:0]
	if strings.IndexByte(h, ':') >= 0 {
		key = append(append(append(key, '['), h...), ']')
	} else {
		key = append(key, h...)
	}
	key = append(append(key, ':'), port...)
	_, ok := l.hosts[string(key)]
	return ok
}

// Hosts returns the list's host:port entries, sorted.
func (l *AllowList) Hosts() []string {
	if l == nil {
		return nil
	}
	out := make([]string, 0, len(l.hosts))
	for h := range l.hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// Transport returns next (http.DefaultTransport when nil) behind the list:
// a request whose URL the list does not allow fails with an error wrapping
// ErrHostNotAllowed before any connection is made. An http.Client calls
// its Transport once per redirect hop, so every hop is checked.
func (l *AllowList) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &guardTransport{next: next, allow: l}
}

type guardTransport struct {
	next  http.RoundTripper
	allow *AllowList
}

// RoundTrip refuses a request the list does not allow, else passes it on.
func (g *guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !g.allow.Allows(req.URL) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%w: %s", ErrHostNotAllowed, req.URL.Redacted())
	}
	return g.next.RoundTrip(req)
}

// guarded returns a copy of c (a zero client when nil) whose Transport
// checks every request against l.
func guarded(c *http.Client, l *AllowList) *http.Client {
	var g http.Client
	if c != nil {
		g = *c
	}
	if g.Transport == nil {
		g.Transport = cappedDefaultTransport()
	}
	g.Transport = l.Transport(g.Transport)
	return &g
}

// cappedDefaultTransport is the transport of a nil client or transport:
// http.DefaultTransport's settings with response headers capped at
// DefaultMaxHeaderBytes, one for the process.
var cappedDefaultTransport = sync.OnceValue(func() http.RoundTripper {
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	tr := dt.Clone()
	tr.MaxResponseHeaderBytes = DefaultMaxHeaderBytes
	return tr
})

// ownAllowList is the AllowList of archive a alone, for an Upstream given
// no list.
func ownAllowList(a *Archive) *AllowList { return NewAllowList([]Archive{*a}) }
