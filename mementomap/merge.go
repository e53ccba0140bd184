package mementomap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/ukvs"
)

// ErrDifferentArchives is returned by [Merge] for maps whose "!id"
// headers (the archive each map describes, internal/spec/MEMENTOMAP.md) differ.
var ErrDifferentArchives = errors.New("mementomap: maps of different archives (!id differs)")

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
	Both       int64 // keys in both maps (frequencies summed)
	Exclusions int64 // "holds nothing" lines dropped because the other map did not agree
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
	buf     []byte
	long    []byte
}

func (r *mapReader) errorf(key []byte, err error) error {
	return &LineError{File: r.name, Line: r.line, Key: string(key), Err: err}
}

func (r *mapReader) next() error {
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
		if r.key != nil {
			if c := bytes.Compare(k, r.key); c < 0 {
				return r.errorf(k, ErrOutOfOrder)
			} else if c == 0 {
				return r.errorf(k, ErrDuplicateKey)
			}
		}
		r.buf = append(r.buf[:0], body...)
		r.body = r.buf
		r.key = r.buf[:len(k)]
		off := len(body) - len(bytes.TrimLeft(body[len(k):], " \t")) // start of value
		r.value = r.buf[off : off+len(v)]
		return nil
	}
}

// Merge writes the union of two sorted maps of the same archive (for
// example maps of two index shards, or of two crawl periods) to dst: every
// key of either, the frequencies of keys in both summed with
// [ukvs.Frequency.Add] (bounds kept, so approximate markers survive), and
// the header lines of a (or of b when a has none). A line that says "holds
// nothing" ("0") is kept only when the other map says so too: a lone
// exclusion could hide what a wildcard of the other map holds, a false
// negative. Both inputs must be sorted (see [Compact] for the errors).
// Maps of two archives are not merged: when both have an "!id" header
// naming an archive and the names differ (the "uri" members of the JSON
// objects; other values compared as written), Merge returns
// [ErrDifferentArchives] before writing anything. Errors in an input are
// *[LineError] values naming it (by its Name method, as an *os.File has,
// else "first map" or "second map") and the line; a line longer than
// [MaxLineLength] is refused once the limit is passed, without reading on,
// so that an input that never ends a line (/dev/zero) fails at once, and a
// merged line past the limit is refused rather than written. Memory: one
// line of each input.
func Merge(dst io.Writer, a, b io.Reader) (MergeStats, error) {
	var st MergeStats
	ra := &mapReader{name: nameOf(a, "first map"), br: bufio.NewReaderSize(a, 1<<16)}
	rb := &mapReader{name: nameOf(b, "second map"), br: bufio.NewReaderSize(b, 1<<16)}
	out := nameOf(dst, "the output")
	if err := ra.next(); err != nil {
		return st, err
	}
	if err := rb.next(); err != nil {
		return st, err
	}
	if ida, idb := headerValue(ra.headers, "id"), headerValue(rb.headers, "id"); !sameArchive(ida, idb) {
		return st, fmt.Errorf("%w: %q and %q", ErrDifferentArchives, ida, idb)
	}
	bw := bufio.NewWriterSize(dst, 1<<16)
	hs := ra.headers
	if len(hs) == 0 {
		hs = rb.headers
	}
	for _, h := range hs {
		bw.Write(h)
		bw.WriteByte('\n')
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
	one := func(r *mapReader) error {
		f, err := freq(r)
		if err != nil {
			return err
		}
		if f.HoldsNothing() {
			st.Exclusions++
		} else {
			bw.Write(r.body)
			bw.WriteByte('\n')
			st.Lines++
		}
		return r.next()
	}
	var line []byte
	for !ra.done || !rb.done {
		var c int
		switch {
		case ra.done:
			c = 1
		case rb.done:
			c = -1
		default:
			c = bytes.Compare(ra.key, rb.key)
		}
		var err error
		switch {
		case c < 0:
			err = one(ra)
		case c > 0:
			err = one(rb)
		default:
			fa, err1 := freq(ra)
			fb, err2 := freq(rb)
			if err1 != nil {
				return st, err1
			}
			if err2 != nil {
				return st, err2
			}
			line = append(line[:0], ra.key...)
			line = append(line, ' ')
			line = fa.Add(fb).Append(line)
			if len(line) > MaxLineLength {
				return st, ra.errorf(ra.key, fmt.Errorf("%w: the merged line would have %d bytes, more than %d", ErrLineTooLong, len(line), MaxLineLength))
			}
			line = append(line, '\n')
			bw.Write(line)
			st.Lines++
			st.Both++
			if err = ra.next(); err == nil {
				err = rb.next()
			}
		}
		if err != nil {
			return st, err
		}
	}
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("mementomap: writing %s: %w", out, err)
	}
	return st, nil
}
