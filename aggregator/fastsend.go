package aggregator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// requestError is a request that could not be made (its URL does not
// parse), as http.NewRequestWithContext refuses it.
type requestError struct{ err error }

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// send sends one request of HTTPUpstream to archive a, following
// redirects when follow is true, and returns the answer, the URL that
// gave it and an error: a *requestError when no request could be made,
// else what http.Client.Do returns. acceptDatetime, when not empty, is
// sent as Accept-Datetime.
//
// With the fast transport over a Client with no cookie Jar and no
// Timeout, the request is sent on it directly, with no *http.Request,
// *http.Response or header map: the allow list is checked before every
// hop, redirects are followed as http.Client follows them (301, 302,
// 303, 307 and 308 with a Location, at most MaxRedirects, a Referer
// unless from https to http, the first 2 KiB of a redirect's body read)
// and errors are the *url.Error Client.Do returns. A hop the fast
// transport does not take (through a proxy, say) sends the whole
// request again through the Client.
func (u *HTTPUpstream) send(ctx context.Context, a *Archive, follow bool, method, rawURL, acceptDatetime string) (*fastResp, *url.URL, error) {
	if f := u.direct(); f != nil {
		allow := u.Allow
		if allow == nil {
			allow = ownAllowList(a)
		}
		if fr, final, err, ok := u.sendFast(ctx, f, allow, follow, method, rawURL, acceptDatetime); ok {
			return fr, final, err
		}
	}
	req, err := u.newRequest(ctx, method, rawURL)
	if err != nil {
		return nil, nil, &requestError{err}
	}
	if acceptDatetime != "" {
		req.Header.Set("Accept-Datetime", acceptDatetime)
	}
	resp, err := u.client(a, follow).Do(req)
	if err != nil {
		return nil, nil, err
	}
	final := req.URL
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL
	}
	return &fastResp{status: resp.StatusCode, length: resp.ContentLength, resp: resp, body: resp.Body}, final, nil
}

// direct is the fast transport when requests may be sent on it without
// an http.Client: Client has no Jar and no Timeout and its Transport is
// the fast one; nil otherwise.
func (u *HTTPUpstream) direct() *fastTransport {
	if c := u.Client; c != nil && (c.Jar != nil || c.Timeout != 0) {
		return nil
	}
	f, _ := u.transport().(*fastTransport)
	return f
}

// uaValue is the User-Agent value sent, and whether it may be written
// as it is.
func (u *HTTPUpstream) uaValue() (string, bool) {
	v := u.UserAgent
	if v == "" {
		v = "mementokit-aggregator"
	}
	return v, httpguts.ValidHeaderFieldValue(v) && !strings.ContainsAny(v, "\r\n")
}

// sendFast is send on the fast transport f; ok is false when a request
// is one f does not take (nothing is returned then, and no answer is
// left open).
func (u *HTTPUpstream) sendFast(ctx context.Context, f *fastTransport, allow *AllowList, follow bool, method, rawURL, acceptDatetime string) (fr *fastResp, final *url.URL, err error, ok bool) {
	ua, uaOK := u.uaValue()
	if !uaOK || method != http.MethodGet && method != http.MethodHead {
		return nil, nil, nil, false
	}
	// As http.NewRequestWithContext: the URL parsed, an empty port
	// removed from the host.
	cur, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, &requestError{err}, true
	}
	if hasPort(cur.Host) {
		cur.Host = strings.TrimSuffix(cur.Host, ":")
	}
	maxR := u.MaxRedirects
	if maxR <= 0 {
		maxR = 10
	}
	op := "Get"
	if method == http.MethodHead {
		op = "Head"
	}
	var prev *url.URL
	for hops := 0; ; hops++ {
		if !allow.Allows(cur) {
			return nil, nil, &url.Error{Op: op, URL: cur.String(), Err: fmt.Errorf("%w: %s", ErrHostNotAllowed, cur.Redacted())}, true
		}
		ruri := cur.RequestURI()
		if !f.takesURL(cur, cur.Host) || !cleanTarget(ruri) {
			return nil, nil, nil, false
		}
		extra := ""
		if acceptDatetime != "" {
			extra = "Accept-Datetime: " + acceptDatetime + "\r\n"
		}
		if prev != nil && !(prev.Scheme == "https" && cur.Scheme == "http") {
			extra += "Referer: " + prev.String() + "\r\n"
		}
		fr, err := f.do(ctx, cur, &fastReq{method: method, ruri: ruri, host: cur.Host, ua: ua, extra: extra})
		if err != nil {
			var re tls.RecordHeaderError
			if errors.As(err, &re) && string(re.RecordHeader[:]) == "HTTP/" {
				err = http.ErrSchemeMismatch
			}
			return nil, nil, &url.Error{Op: op, URL: cur.String(), Err: err}, true
		}
		switch fr.status {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return fr, cur, nil, true
		}
		loc := fr.get("Location")
		if loc == "" {
			return fr, cur, nil, true
		}
		next, err := cur.Parse(loc)
		if err != nil {
			_ = fr.body.Close()
			return nil, nil, &url.Error{Op: op, URL: cur.String(), Err: fmt.Errorf("failed to parse Location header %q: %v", loc, err)}, true
		}
		if !follow {
			return fr, cur, nil, true
		}
		const maxBodySlurpSize = 2 << 10 // what http.Client reads of a redirect's body
		if fr.length == -1 || fr.length <= maxBodySlurpSize {
			_, _ = io.CopyN(io.Discard, fr.body, maxBodySlurpSize)
		}
		_ = fr.body.Close()
		if hops+1 >= maxR {
			return nil, nil, &url.Error{Op: op, URL: loc, Err: errRedirectLoop}, true
		}
		prev, cur = cur, next
	}
}

// hasPort reports whether host ends in a port or a colon, as net/http's.
func hasPort(s string) bool { return strings.LastIndex(s, ":") > strings.LastIndex(s, "]") }
