package mementomap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/mementokit/mementokit/ukvs"
)

// ErrDifferentArchives is returned by [Merge] for maps whose "!id"
// headers (the archive each map describes, internal/spec/MEMENTOMAP.md) differ.
var ErrDifferentArchives = errors.New("mementomap: maps of different archives (!id differs)")

// ErrDifferentLayouts is returned by [Merge] for maps whose !fields
// headers declare different columns (a map keyed by URI and datetime and
// one keyed by URI alone), or a layout whose frequency is not the first
// value column.
var ErrDifferentLayouts = errors.New("mementomap: maps of different layouts (!fields differ)")

// headerValue returns the trimmed value of the first header line "!name
// VALUE" in hs (lines without their end), or nil when there is none.
func headerValue(hs [][]byte, name string) []byte {
	for _, h := range hs {
		rest, ok := bytes.CutPrefix(h, []byte("!"+name))
		if ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t') {
			return bytes.TrimSpace(rest)
		}
	}
	return nil
}

// sameArchive reports whether two "!id" values may name the same archive:
// one is missing, or names no archive ({"uri": ""}, what [Build] writes
// without an ArchiveID), or both have the same "uri" member (or, when
// they are not JSON objects, the same bytes).
func sameArchive(a, b []byte) bool {
	if a == nil || b == nil {
		return true
	}
	var ja, jb struct {
		URI *string `json:"uri"`
	}
	if json.Unmarshal(a, &ja) != nil || json.Unmarshal(b, &jb) != nil || ja.URI == nil || jb.URI == nil {
		return bytes.Equal(a, b)
	}
	return *ja.URI == "" || *jb.URI == "" || *ja.URI == *jb.URI
}

// MergeStats counts a [Merge] run.
type MergeStats struct {
	Lines      int64 // data lines written
	Both       int64 // keys in more than one map (frequencies summed, URI-R count an upper bound)
	Exclusions int64 // "holds nothing" lines dropped because another map did not agree
}

// mapReader reads the data lines of a sorted map, checking order.
type mapReader struct {
	name    string
	br      *bufio.Reader
	line    int64
	key     []byte
	value   []byte
	body    []byte
	headers [][]byte
	done    bool
	sniffed bool // the first bytes were checked for binary data (sniffStream)
	buf     []byte
	long    []byte
	// lay is the layout of the map's !fields, read at its first data
	// line; tkeys are the key columns after the first (the datetime of a
	// datetime map), in buf like key.
	lay      mapLayout
	layKnown bool
	tkeys    [][]byte
}

// layout returns the map's layout from its headers.
func (r *mapReader) layout() mapLayout {
	if !r.layKnown {
		var hs ukvs.Headers
		for _, h := range r.headers {
			hs = append(hs, parseRawHeader(h))
		}
		r.lay, r.layKnown = layoutOf(hs), true
	}
	return r.lay
}

// compareKeys compares the key columns of two lines (key, then the others
// one by one), as ukvs.Check orders them.
func compareKeys(k1 []byte, t1 [][]byte, k2 []byte, t2 [][]byte) int {
	if c := bytes.Compare(k1, k2); c != 0 {
		return c
	}
	for i := range min(len(t1), len(t2)) {
		if c := bytes.Compare(t1[i], t2[i]); c != 0 {
			return c
		}
	}
	return len(t1) - len(t2)
}

func (r *mapReader) errorf(key []byte, err error) error {
	return &LineError{File: r.name, Line: r.line, Key: string(key), Err: err}
}

func (r *mapReader) next() error {
	if r.line == 0 && !r.sniffed {
		r.sniffed = true
		if err := sniffStream(r.br); err != nil {
			err.(*LineError).File = r.name
			return err
		}
	}
	for {
		l, err := readLine(r.br, &r.long, MaxLineLength)
		if _, ok := err.(errLongLine); ok {
			r.line++
			return r.errorf(nil, fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, MaxLineLength))
		}
		if len(l) == 0 && err == io.EOF {
			r.done = true
			return nil
		}
		if err != nil && err != io.EOF {
			return &LineError{File: r.name, Line: r.line + 1, Err: fmt.Errorf("reading: %w", err)}
		}
		r.line++
		if r.line == 1 {
			l = bytes.TrimPrefix(l, []byte(utf8BOM))
		}
		if n := bodyLen(l); n > MaxLineLength {
			return r.errorf(nil, fmt.Errorf("%w: %d bytes, more than %d", ErrLineTooLong, n, MaxLineLength))
		}
		if hasInnerCR(l) {
			return r.errorf(nil, ErrLoneCR)
		}
		if isBlank(l) {
			continue
		}
		if l[0] == '!' {
			if r.key != nil {
				return r.errorf(nil, ErrLateHeader)
			}
			_, _, body := splitLine(l)
			r.headers = append(r.headers, append([]byte(nil), body...))
			continue
		}
		k, v, body := splitLine(l)
		lay := r.layout()
		var tk [][]byte // the other key columns, in body
		if lay.keys > 1 {
			for i := 1; i < lay.keys; i++ {
				c := column(body, i)
				if c == nil {
					return r.errorf(k, fmt.Errorf("%w: %d key columns in !fields, %d on the line", ukvs.ErrFieldCount, lay.keys, i))
				}
				tk = append(tk, c)
			}
		}
		if !lay.plain() {
			v = column(body, lay.freq)
		}
		if r.key != nil {
			if c := compareKeys(k, tk, r.key, r.tkeys); c < 0 {
				return r.errorf(k, ErrOutOfOrder)
			} else if c == 0 {
				return r.errorf(k, ErrDuplicateKey)
			}
		}
		r.buf = append(r.buf[:0], body...)
		r.body = r.buf
		r.key = r.buf[:len(k)]
		at := func(c []byte) []byte { // c, a part of body, in buf
			off := cap(body) - cap(c)
			return r.buf[off : off+len(c)]
		}
		r.tkeys = r.tkeys[:0]
		for _, c := range tk {
			r.tkeys = append(r.tkeys, at(c))
		}
		r.value = nil
		if len(v) > 0 {
			r.value = at(v)
		}
		return nil
	}
}

// Merge writes the union of sorted maps of one archive (for example the
// maps of index shards, of crawl periods, or the partial maps of a plan
// that [Concat] refuses) to dst: every key of any of them, in order, with
// the header lines of the first map that has any. A key in one map keeps
// its line as it is. The frequencies of a key in several maps are summed
// with [ukvs.Frequency.Add] (bounds kept, so approximate markers survive),
// except the URI-R count: two maps may count the same URI-R under one key,
// so the sum is only an upper bound, and an exact or upper-bound sum is
// written as one (ukvs.AtMost, "7/2-"), a lower-bound or approximate one
// as approximate ("14~/4~"). Merge is exact for maps whose keys are
// disjoint. A line that says "holds nothing" ("0") is kept only when every
// map has that key and says so too: a lone exclusion could hide what a
// wildcard of another map holds, a false negative; beside a map that holds
// something under the key, it adds nothing. All inputs must be sorted (see
// [Compact] for the errors). Maps of two archives are not merged: when two
// "!id" headers name archives and the names differ (the "uri" members of
// the JSON objects; other values compared as written), Merge returns
// [ErrDifferentArchives] before writing anything. Errors in an input are
// *[LineError] values naming it (by its Name method, as an *os.File has,
// else "first map", "second map", "map 3", ...) and the line; a line
// longer than [MaxLineLength] is refused once the limit is passed, without
// reading on, so that an input that never ends a line (/dev/zero) fails
// at once, and a merged line past the limit is refused rather than
// written. Memory: one line of each input; time: O(lines × maps).
//
// Maps with a time key column (!fields {"keys": ["surt", "datetime"], ...},
// or "observed") are merged line by line in the order of ukvs.Check, by
// URI key and then time key: the lines of one key and one datetime in
// several maps are summed as above, and a key's other lines are kept as
// they are, so each period keeps its own line. All maps must declare the
// same columns ([ErrDifferentLayouts]); the frequency must be the first
// value column, and a merged line is written as its key columns and the
// summed frequency. In observed maps a "0" line (the archive answered
// "none" at that time) is an observation of the whole archive, not of one
// shard, and is kept though the other maps do not list it: the latest
// observation of the merged maps then decides, as in each one.
func Merge(dst io.Writer, maps ...io.Reader) (MergeStats, error) {
	var st MergeStats
	rs := make([]*mapReader, len(maps))
	for i, m := range maps {
		def := fmt.Sprintf("map %d", i+1)
		switch i {
		case 0:
			def = "first map"
		case 1:
			def = "second map"
		}
		rs[i] = &mapReader{name: nameOf(m, def), br: bufio.NewReaderSize(m, 1<<16)}
	}
	out := nameOf(dst, "the output")
	for _, r := range rs {
		if err := r.next(); err != nil {
			return st, err
		}
	}
	// One layout for all: the lines of a datetime map are merged by URI
	// key and datetime, and a map keyed by URI alone cannot join them.
	var lay *mapLayout
	var layFrom *mapReader
	for _, r := range rs {
		if r.done && len(r.headers) == 0 {
			continue // an empty file: nothing to merge
		}
		l := r.layout()
		if lay == nil {
			lay, layFrom = &l, r
			continue
		}
		if !slices.Equal(l.fields.Keys, lay.fields.Keys) || !slices.Equal(l.fields.Values, lay.fields.Values) {
			return st, fmt.Errorf("%w: %s has the columns %v/%v and %s %v/%v", ErrDifferentLayouts, layFrom.name, lay.fields.Keys, lay.fields.Values, r.name, l.fields.Keys, l.fields.Values)
		}
	}
	if lay != nil && lay.freq != lay.keys {
		return st, fmt.Errorf("%w: the frequency is not the first value column (%v/%v)", ErrDifferentLayouts, lay.fields.Keys, lay.fields.Values)
	}
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if ida, idb := headerValue(rs[i].headers, "id"), headerValue(rs[j].headers, "id"); !sameArchive(ida, idb) {
				return st, fmt.Errorf("%w: %q and %q", ErrDifferentArchives, ida, idb)
			}
		}
	}
	bw := bufio.NewWriterSize(dst, 1<<16)
	for _, r := range rs {
		if len(r.headers) > 0 {
			for _, h := range r.headers {
				bw.Write(h)
				bw.WriteByte('\n')
			}
			break
		}
	}
	freq := func(r *mapReader) (ukvs.Frequency, error) {
		var f ukvs.Frequency
		if len(r.value) == 0 {
			return f, nil
		}
		if err := f.UnmarshalText(r.value); err != nil {
			return f, r.errorf(r.key, fmt.Errorf("%w: %v", ErrBadFrequency, err))
		}
		return f, nil
	}
	var line []byte
	var at []*mapReader // the readers at the least key
	for {
		at = at[:0]
		for _, r := range rs {
			if r.done {
				continue
			}
			if len(at) > 0 {
				c := compareKeys(r.key, r.tkeys, at[0].key, at[0].tkeys)
				if c > 0 {
					continue
				}
				if c < 0 {
					at = at[:0]
				}
			}
			at = append(at, r)
		}
		if len(at) == 0 {
			break
		}
		var sum ukvs.Frequency
		holding, nothing := 0, 0
		for _, r := range at {
			f, err := freq(r)
			if err != nil {
				return st, err
			}
			if f.HoldsNothing() {
				nothing++
				if holding == 0 && nothing == 1 {
					sum = f
				}
				continue
			}
			if holding == 0 {
				sum = f
			} else {
				sum = sum.Add(f)
			}
			holding++
		}
		switch {
		case holding == 0 && nothing < len(rs) && (lay == nil || lay.timeKey != TimeKeyObserved):
			st.Exclusions += int64(nothing)
		case len(at) == 1:
			bw.Write(at[0].body)
			bw.WriteByte('\n')
			st.Lines++
		default:
			if holding > 1 {
				sum.URIR = overlapped(sum.URIR)
			}
			line = append(line[:0], at[0].key...)
			line = append(line, ' ')
			for _, c := range at[0].tkeys {
				line = append(line, c...)
				line = append(line, ' ')
			}
			line = sum.Append(line)
			if len(line) > MaxLineLength {
				return st, at[0].errorf(at[0].key, fmt.Errorf("%w: the merged line would have %d bytes, more than %d", ErrLineTooLong, len(line), MaxLineLength))
			}
			line = append(line, '\n')
			bw.Write(line)
			st.Lines++
			st.Both++
		}
		for _, r := range at {
			if err := r.next(); err != nil {
				return st, err
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("mementomap: writing %s: %w", out, err)
	}
	return st, nil
}

// overlapped is the URI-R count c, summed over maps that may share URI-Rs,
// as the bound it still is: an exact or upper-bound sum is an upper bound,
// a lower-bound or approximate one approximate, an unknown one unknown.
func overlapped(c ukvs.Count) ukvs.Count {
	if !c.Known {
		return c
	}
	switch c.Bound {
	case ukvs.Exact, ukvs.AtMost:
		c.Bound = ukvs.AtMost
	default:
		c.Bound = ukvs.About
	}
	return c
}
