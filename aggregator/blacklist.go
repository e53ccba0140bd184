package aggregator

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// Blacklist is a set of blocked host names. A host is blocked when it, or
// any domain it is a subdomain of, is listed: listing example.com blocks
// example.com, www.example.com and a.b.example.com, never notexample.com.
// Listed hosts and looked-up hosts are both put in their one spelling by
// NormalizeHost, so that a host is blocked however it is written: in any
// case, with leading, trailing or repeated dots, percent-escaped, in either
// form of an internationalized name (listing öde.example blocks
// xn--de-eka.example and the other way round), and an IPv4 address in any
// inet_aton form (listing 127.0.0.1 blocks 2130706433 and 0x7f.1). An IP
// address is blocked only when listed itself (no parent domains). A
// Blacklist is immutable after ParseBlacklist and safe for concurrent use;
// the nil *Blacklist blocks nothing.
type Blacklist struct {
	hosts map[string]struct{}
}

// ParseBlacklist reads a host list in the format of the public category
// lists (the Toulouse UT1 "domains" files): one domain per line; blank lines
// and lines starting with '#' are skipped; surrounding spaces, a trailing
// dot and upper case are normalised (NormalizeHost). A line holding a
// space, a slash or a character that cannot be in a host name is an error
// naming the line.
// Lines may be up to 64 KiB. Memory is proportional to the number of hosts.
func ParseBlacklist(r io.Reader) (*Blacklist, error) {
	b := &Blacklist{hosts: map[string]struct{}{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for line := 1; sc.Scan(); line++ {
		h := strings.TrimSpace(sc.Text())
		if h == "" || h[0] == '#' {
			continue
		}
		h = strings.TrimSuffix(strings.ToLower(h), ".")
		if !validHost(h) {
			return nil, fmt.Errorf("blacklist: line %d: %q is not a host name", line, sc.Text())
		}
		if n, err := NormalizeHost(h); err == nil {
			h = n
		} else {
			h = asciiHost(h) // "999.1.2.3" in a list: kept, it can match nothing
		}
		b.hosts[h] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("blacklist: after %d hosts: %w", len(b.hosts), err)
	}
	return b, nil
}

func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.', c == '_', c == ':', c >= 0x80:
		default:
			return false
		}
	}
	return true
}

// asciiHost is h lower-cased, with a non-ASCII name in its ASCII (punycode)
// form as idna.Lookup maps it; a name idna refuses (an underscore, say)
// is only lower-cased.
func asciiHost(h string) string {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			if a, err := idna.Lookup.ToASCII(h); err == nil {
				return a
			}
			break
		}
	}
	return strings.ToLower(h)
}

// Len is the number of listed hosts.
func (b *Blacklist) Len() int {
	if b == nil {
		return 0
	}
	return len(b.hosts)
}

// BlocksHost reports whether host (as url.URL.Hostname gives it: no
// brackets, no port), once normalized (NormalizeHost), or one of its parent
// domains is listed. A host that does not normalize is looked up lower-cased.
func (b *Blacklist) BlocksHost(host string) bool {
	if b == nil || len(b.hosts) == 0 {
		return false
	}
	h, err := NormalizeHost(host)
	if err != nil {
		h = asciiHost(strings.TrimSuffix(host, "."))
	}
	if _, ok := b.hosts[h]; ok {
		return true
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return false // an address has no parent domains
	}
	for {
		if _, ok := b.hosts[h]; ok {
			return true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			return false
		}
		h = h[i+1:]
	}
}

// Blocks reports whether the host of the URI-R urir is blocked, after
// NormalizeURIR; a URI-R that does not normalize is judged by the host
// url.Parse finds, and is not blocked when it has none.
func (b *Blacklist) Blocks(urir string) bool {
	if b == nil {
		return false
	}
	if n, err := NormalizeURIR(urir); err == nil {
		urir = n
	}
	return b.blocksNormalized(urir)
}

// blocksNormalized is Blocks for a URI-R that NormalizeURIR returned.
func (b *Blacklist) blocksNormalized(urir string) bool {
	if b == nil || len(b.hosts) == 0 {
		return false
	}
	u, err := url.Parse(urir)
	if err != nil {
		return false
	}
	return b.BlocksHost(u.Hostname())
}
