package mementomap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/edsrzf/mmap-go"
	"github.com/mementokit/mementokit/ukvs"
)

// Map is an open MementoMap file, memory-mapped read-only. Lookups binary
// search the mapped bytes, so opening costs one mmap call whatever the
// size, and memory use is the pages the kernel keeps cached. A Map is safe
// for concurrent use by many goroutines; Close must not race with lookups.
type Map struct {
	f       *os.File
	data    mmap.MMap
	b       []byte // data, or nil for an empty file
	start   int    // offset of the first line after the header section
	headers ukvs.Headers
	pool    sync.Pool // *candidates
}

// Match is the answer of a lookup.
type Match struct {
	Key       string         // the map key that decided, "" when none matched
	Value     string         // its frequency column as written
	Frequency ukvs.Frequency // Value parsed (zero when Value is malformed or missing)
	Distance  int            // index of Key among the lookup keys tried (0 = exact), -1 when none matched
}

// Present reports whether the map says the archive may hold the URI: a key
// matched and its frequency does not say "holds nothing" (MEMENTOMAP.md:
// a frequency of 0 is an exclusion line, which means absent).
func (m Match) Present() bool { return m.Distance >= 0 && !m.Frequency.HoldsNothing() }

// ErrClosed is returned by lookups on a closed Map.
var ErrClosed = errors.New("mementomap: map is closed")

// Open memory-maps the MementoMap file at path for lookups. Empty files and
// files holding only headers are valid maps that hold nothing. The header
// section ("!" lines and blank lines at the top) is parsed leniently: a
// header line that is not valid UKVS is kept with its raw value.
func Open(path string) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mementomap: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mementomap: %w", err)
	}
	m := &Map{f: f}
	if fi.Size() > 0 {
		m.data, err = mmap.Map(f, mmap.RDONLY, 0)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("mementomap: mmap %s: %w", path, err)
		}
		m.b = m.data
	}
	m.start = m.parseHeaders()
	m.pool.New = func() any { return new(candidates) }
	return m, nil
}

// FromBytes returns a Map over b, a MementoMap held in memory, with the
// same lookups as a file opened by [Open]. b must not change while the Map
// is in use; Close on such a Map only forgets b.
func FromBytes(b []byte) *Map {
	m := &Map{b: b}
	if m.b == nil {
		m.b = []byte{}
	}
	m.start = m.parseHeaders()
	m.pool.New = func() any { return new(candidates) }
	return m
}

// parseHeaders reads the "!" lines at the top and returns where data starts.
func (m *Map) parseHeaders() int {
	p := 0
	for p < len(m.b) {
		e := bytes.IndexByte(m.b[p:], '\n')
		end := len(m.b)
		if e >= 0 {
			end = p + e
		}
		line := m.b[p:end]
		switch {
		case isBlank(line):
		case line[0] == '!':
			name, raw, _ := strings.Cut(strings.TrimRight(string(line[1:]), "\r"), " ")
			m.headers = append(m.headers, ukvs.Header{Name: name, Raw: strings.TrimSpace(raw)})
		default:
			return p
		}
		if e < 0 {
			return len(m.b)
		}
		p = end + 1
	}
	return p
}

// Headers returns the header lines of the map (name and raw value only).
func (m *Map) Headers() ukvs.Headers { return m.headers }

// Size returns the size of the mapped file in bytes.
func (m *Map) Size() int { return len(m.b) }

// Close unmaps the file and closes it. Lookups after Close return ErrClosed.
func (m *Map) Close() error {
	var err error
	if m.data != nil {
		err = m.data.Unmap()
		m.data = nil
	}
	m.b = nil
	m.start = 0
	if m.f != nil {
		if cerr := m.f.Close(); err == nil {
			err = cerr
		}
		m.f = nil
	}
	return err
}

// lineAt returns the bounds of the line containing offset p.
func (m *Map) lineStart(p int) int {
	i := bytes.LastIndexByte(m.b[m.start:p], '\n')
	if i < 0 {
		return m.start
	}
	return m.start + i + 1
}

func (m *Map) lineEnd(p int) int {
	i := bytes.IndexByte(m.b[p:], '\n')
	if i < 0 {
		return len(m.b)
	}
	return p + i
}

func keyOf(line []byte) []byte {
	for i, ch := range line {
		if ch == ' ' || ch == '\t' || ch == '\r' {
			return line[:i]
		}
	}
	return line
}

// search returns the start of the first non-blank data line whose key is
// not less than key, or len(b); and whether that line's key equals key.
func (m *Map) search(key []byte) (int, bool) {
	lo, hi := m.start, len(m.b)
	for lo < hi {
		mid := lo + (hi-lo)/2
		ls := m.lineStart(mid)
		// skip blank lines forward
		ls2 := ls
		var le int
		for {
			le = m.lineEnd(ls2)
			if !isBlank(m.b[ls2:le]) || le >= hi {
				break
			}
			ls2 = le + 1
		}
		if ls2 >= hi || isBlank(m.b[ls2:le]) {
			hi = ls
			continue
		}
		if bytes.Compare(keyOf(m.b[ls2:le]), key) < 0 {
			lo = le + 1
		} else {
			hi = ls
		}
	}
	// lo is the first line start at or after which keys are >= key; skip blanks.
	for lo < len(m.b) {
		le := m.lineEnd(lo)
		if !isBlank(m.b[lo:le]) {
			return lo, bytes.Equal(keyOf(m.b[lo:le]), key)
		}
		lo = le + 1
	}
	return len(m.b), false
}

// Get returns the frequency column of the line whose key is exactly key.
func (m *Map) Get(key string) (value string, ok bool) {
	if m.b == nil {
		return "", false
	}
	p, ok := m.search([]byte(key))
	if !ok {
		return "", false
	}
	_, v, _ := splitLine(m.b[p:m.lineEnd(p)])
	return string(v), true
}

// LookupSURT looks up a SURT or HxPx key (the query, if any, is cut): it
// tries the keys of [AppendLookupKeys] most specific first and returns the
// first present in the map. No match returns Distance -1, which, like a
// match whose frequency holds nothing, means absent. Cost: one binary
// search (O(log size) line reads) per key tried.
func (m *Map) LookupSURT(surtKey string) (Match, error) {
	if m.b == nil {
		if m.f == nil {
			return Match{Distance: -1}, ErrClosed
		}
		return Match{Distance: -1}, nil
	}
	if len(m.b) == 0 {
		return Match{Distance: -1}, nil
	}
	c := m.pool.Get().(*candidates)
	defer m.pool.Put(c)
	c.build([]byte(surtKey))
	return m.lookupCandidates(c), nil
}

func (m *Map) lookupCandidates(c *candidates) Match {
	for i := range c.n {
		k := c.key(i)
		p, ok := m.search(k)
		if !ok {
			continue
		}
		_, v, _ := splitLine(m.b[p:m.lineEnd(p)])
		var f ukvs.Frequency
		_ = f.UnmarshalText(v)
		return Match{Key: string(k), Value: string(v), Frequency: f, Distance: i}
	}
	return Match{Distance: -1}
}
