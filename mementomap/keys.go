package mementomap

import "bytes"

// The layers of a key (internal/spec/MEMENTOMAP.md, "Compaction"). A key is split in two
// layers: the host layer (the part before ')' cut at each ',') and the path
// layer (the full host with its ')', then each '/'-separated segment). The
// same boundary functions drive compaction (where nodes are rolled up into
// "KEY,*" and "KEY/*") and lookup (which tries exactly those wildcard
// forms), so a roll-up can never produce a key that a lookup does not try.

// hostEnds fills ends with the end offsets (exclusive) of the host-layer
// levels of key: level 0 is the first label ("com"), level i the first i+1
// labels, and the last tracked level (max-1) takes the whole host. It
// returns the number of levels (0 for an empty host). The host is the part
// of key before the first ')', or the whole key when it has none (wildcard
// keys such as "com,example,*").
func hostEnds(key []byte, ends []int, max int) int {
	h := bytes.IndexByte(key, ')')
	if h < 0 {
		h = len(key)
	}
	if h == 0 || max <= 0 {
		return 0
	}
	n := 0
	for i := 0; i < h; i++ {
		if key[i] == ',' {
			if n == max-1 {
				break
			}
			ends[n] = i
			n++
		}
	}
	ends[n] = h
	return n + 1
}

// pathEnds fills ends with the end offsets (exclusive) of the path-layer
// levels of key: level 0 is the host with its ')' ("com,example)"), level i
// adds the i-th path segment ("com,example)/a", "com,example)/a/b"). The
// root path ("com,example)/" or "com,example)") has level 0 only; a trailing
// slash makes a level of its own ("com,example)/a/" is below
// "com,example)/a"). The last tracked level (max-1) takes the whole key,
// except with max 1, where the one level is the host. A key without ')'
// has no path layer (0 levels).
func pathEnds(key []byte, ends []int, max int) int {
	p := bytes.IndexByte(key, ')')
	if p < 0 || max <= 0 {
		return 0
	}
	p++
	ends[0] = p
	if max == 1 {
		return 1
	}
	s := p
	if s < len(key) && key[s] == '/' {
		s++
	}
	if s >= len(key) {
		return 1
	}
	n := 1
	for i := s; i < len(key); i++ {
		if key[i] == '/' {
			if n == max-1 {
				break
			}
			ends[n] = i
			n++
		}
	}
	ends[n] = len(key)
	return n + 1
}

// maxLevels bounds the depth LookupKeys considers; keys deeper than this are
// still found through their exact form and the wildcards of the first
// maxLevels levels, which covers every depth compaction accepts.
const maxLevels = 64

// AppendLookupKeys appends to dst the keys to try for the HxPx key k, most
// specific first (internal/spec/MEMENTOMAP.md, "Keys"): k itself; for a root key the other
// root form ("com,example)" after "com,example)/", which is what the
// reference tool writes, and the other way round); "P/*" for the full key and
// every shorter path prefix P down to the host ("com,example)/a/b/*",
// "com,example)/a/*", "com,example)/*"); "H,*" for the full host and every
// shorter host prefix ("com,example,*", "com,*"); and finally "*". Commas
// inside the path are path characters. A query (anything from the first
// '?') is cut first. It returns the extended slice.
func AppendLookupKeys(dst []string, k string) []string {
	var c candidates
	c.build([]byte(k))
	for i := range c.n {
		dst = append(dst, string(c.key(i)))
	}
	return dst
}

// candidates holds the lookup keys of one HxPx key in a single buffer, so
// that a lookup allocates nothing once the buffer has grown.
type candidates struct {
	src  []byte // a copy of the key looked up
	buf  []byte
	offs []int // offs[i]..offs[i+1] is candidate i
	n    int
	ends [maxLevels]int
}

func (c *candidates) key(i int) []byte { return c.buf[c.offs[i]:c.offs[i+1]] }

func (c *candidates) add(parts ...[]byte) {
	start := len(c.buf)
	for _, p := range parts {
		c.buf = append(c.buf, p...)
	}
	if c.n > 0 && bytes.Equal(c.buf[start:], c.key(c.n-1)) {
		c.buf = c.buf[:start] // the same key twice in a row (wildcard input)
		return
	}
	c.offs = append(c.offs, len(c.buf))
	c.n++
}

var (
	slashStar = []byte("/*")
	commaStar = []byte(",*")
	star      = []byte("*")
	slash     = []byte("/")
)

func (c *candidates) build(k []byte) {
	c.buf = c.buf[:0]
	c.offs = append(c.offs[:0], 0)
	c.n = 0
	if i := bytes.IndexByte(k, '?'); i >= 0 {
		k = k[:i]
	}
	if len(k) == 0 || (len(k) == 1 && k[0] == '*') {
		c.add(star)
		return
	}
	c.add(k)
	pn := pathEnds(k, c.ends[:], maxLevels)
	if pn == 1 {
		if len(k) == c.ends[0]+1 && k[len(k)-1] == '/' {
			c.add(k[:len(k)-1])
		} else if len(k) == c.ends[0] {
			c.add(k, slash)
		}
	}
	for j := pn - 1; j >= 0; j-- {
		c.add(k[:c.ends[j]], slashStar)
	}
	hn := hostEnds(k, c.ends[:], maxLevels)
	for j := hn - 1; j >= 0; j-- {
		c.add(k[:c.ends[j]], commaStar)
	}
	c.add(star)
}
