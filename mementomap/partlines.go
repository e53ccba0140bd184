package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/extsort"
)

// partLines are the map lines of one part of a build on several workers,
// written by the part's worker as soon as it has read the part, so that
// writing the map is only copying them: the first and the last HxPx key of
// the part with their counts (one key may have captures in two parts, and
// its line then sums both), and the lines of the keys between them, as
// they are, in body (an unlinked temporary file of size bytes; nil when
// there are none).
type partLines struct {
	first, last lineGroup // the same key when groups is 1
	groups      int64     // HxPx keys
	urirs       int64     // distinct URI-Rs
	body        *os.File
	size        int64
	// written says that the lines of every key but the last were written
	// to the map itself as they were formatted (formatPart with a writer):
	// the first part's, when all parts were read before it was formatted.
	written bool
}

// lineGroup is one HxPx key and the counts of its map line: m captures of
// r URI-Rs.
type lineGroup struct {
	key  []byte
	m, r uint64
}

// close frees the part's temporary file.
func (p *partLines) close() {
	if p != nil && p.body != nil {
		p.body.Close()
		p.body = nil
	}
}

// formatPart reads the sort keys of s ("HXPX" or "HXPX\x00QUERY", without
// datetime) with Scan, leaving s open, and writes the lines of its HxPx
// keys but the first and the last to an unlinked temporary file in
// tempDir; or, when to is not nil, the lines of every key but the last to
// to (the part is then the first of the map, after its header: written).
// Its errors are the sorter's, the temporary file's or to's, ctx's, and a
// line longer than MaxLineLength (wrapping ErrLineTooLong).
func formatPart(ctx context.Context, s *extsort.Sorter, tempDir string, to *bufio.Writer) (*partLines, error) {
	ls := newLineStream(tempDir, to)
	n := 0
	err := s.Scan(func(key []byte, count uint64) error {
		if n++; n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		_, err := ls.add(key, count)
		return err
	})
	if err != nil {
		ls.close()
		return nil, err
	}
	return ls.finish()
}

// lineStream makes the partLines of one part from its sort keys given in
// byte-wise order, one at a time (add), as formatPart does from a sorter:
// a part read in key order gets its map lines as it is read, with no
// sorted run to write and read back once it ends.
type lineStream struct {
	p       *partLines
	tempDir string
	to      *bufio.Writer // the map itself (partLines.written), or nil
	bw      *bufio.Writer // to, or the body's writer once it is made
	cur     lineGroup
	have    bool   // a key was added: cur holds its group
	lo, hi  []byte // the first and the last sort key added
	line    []byte
}

// newLineStream returns a lineStream writing the lines of every key but
// the first and the last to an unlinked temporary file in tempDir, or,
// when to is not nil, of every key but the last to to (formatPart).
func newLineStream(tempDir string, to *bufio.Writer) *lineStream {
	return &lineStream{p: &partLines{written: to != nil}, tempDir: tempDir, to: to, bw: to}
}

// add takes the next sort key and its count. A key equal to the last one
// adds to its count; a key that sorts before it is refused: add returns
// false and changes nothing. Its errors are done's.
func (ls *lineStream) add(key []byte, count uint64) (bool, error) {
	if ls.have {
		switch c := bytes.Compare(key, ls.hi); {
		case c < 0:
			return false, nil
		case c == 0:
			ls.cur.m += count
			return true, nil
		}
	} else {
		ls.lo = append(ls.lo[:0], key...)
	}
	ls.hi = append(ls.hi[:0], key...)
	h := key
	if i := bytes.IndexByte(key, 0); i >= 0 {
		h = key[:i]
	}
	ls.p.urirs++
	if ls.have && bytes.Equal(h, ls.cur.key) {
		ls.cur.m += count
		ls.cur.r++
		return true, nil
	}
	if ls.have {
		if err := ls.done(); err != nil {
			return false, err
		}
	}
	ls.cur.key = append(ls.cur.key[:0], h...)
	ls.cur.m, ls.cur.r, ls.have = count, 1, true
	return true, nil
}

// done takes the finished group cur, one before the last: the first is
// kept (but when written to to), every other one written.
func (ls *lineStream) done() error {
	p, cur := ls.p, ls.cur
	if p.groups++; p.groups == 1 && ls.to == nil {
		p.first = lineGroup{append([]byte(nil), cur.key...), cur.m, cur.r}
		return nil
	}
	if ls.bw == nil {
		f, err := atomicfile.Scratch(ls.tempDir, "mementomap-part-*.lines")
		if err != nil {
			return fmt.Errorf("mementomap: the lines of a part: %w", err)
		}
		p.body, ls.bw = f, bufio.NewWriterSize(f, 1<<20)
	}
	var err error
	if ls.line, err = appendMapLine(ls.line[:0], cur.key, cur.m, cur.r); err != nil {
		return err
	}
	if ls.to != nil {
		_, err := ls.bw.Write(ls.line)
		return err
	}
	p.size += int64(len(ls.line))
	if _, err := ls.bw.Write(ls.line); err != nil {
		return fmt.Errorf("mementomap: the lines of a part in %s: %w", ls.tempDir, err)
	}
	return nil
}

// bounds returns the first and the last sort key added, ok false when
// none was.
func (ls *lineStream) bounds() (lo, hi []byte, ok bool) { return ls.lo, ls.hi, ls.have }

// finish ends the stream: the part's lines, its body flushed.
func (ls *lineStream) finish() (*partLines, error) {
	p := ls.p
	if ls.have {
		p.groups++
		p.last = ls.cur
		if p.groups == 1 {
			p.first = ls.cur
		}
	}
	if ls.bw != nil && ls.to == nil {
		if err := ls.bw.Flush(); err != nil {
			p.close()
			return nil, fmt.Errorf("mementomap: the lines of a part in %s: %w", ls.tempDir, err)
		}
	}
	return p, nil
}

// close frees the stream's temporary file, for a stream given up.
func (ls *lineStream) close() { ls.p.close() }

// joinParts writes the lines of the parts ps, in order, to bw and flushes
// it, counting Keys and URIRs in st: the parts' keys must each sort before
// the next part's (extsort.Ordered). A key that is the last of one part and
// the first of the next gets one line with the counts of both (its URI-Rs
// are distinct: the parts' sort keys are). The bodies are copied as they
// are (bw's writer's ReadFrom, a copy within the kernel between files). A
// part written already (partLines.written) must be the first that holds
// keys; only its last line is left to write.
func joinParts(bw *bufio.Writer, st *BuildStats, ps []*partLines) error {
	var pending lineGroup
	have := false
	var line []byte
	write := func(g lineGroup) error {
		var err error
		if line, err = appendMapLine(line[:0], g.key, g.m, g.r); err != nil {
			return err
		}
		st.Keys++
		_, err = bw.Write(line)
		return err
	}
	for _, p := range ps {
		if p == nil || p.groups == 0 {
			continue
		}
		st.URIRs += p.urirs
		if p.written {
			if have {
				return errors.New("mementomap: the lines of a part were written after those of another")
			}
			st.Keys += p.groups - 1 // the last is counted as written
			pending, have = lineGroup{append([]byte(nil), p.last.key...), p.last.m, p.last.r}, true
			continue
		}
		st.Keys += p.groups - 2 // the first and the last are counted as written
		if p.groups == 1 {
			st.Keys++
		}
		f := p.first
		if have && bytes.Equal(pending.key, f.key) {
			pending.m += f.m
			pending.r += f.r
		} else {
			if have {
				if err := write(pending); err != nil {
					return err
				}
			}
			pending, have = lineGroup{append([]byte(nil), f.key...), f.m, f.r}, true
		}
		if p.groups == 1 {
			continue
		}
		if err := write(pending); err != nil {
			return err
		}
		if p.body != nil {
			if _, err := p.body.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("mementomap: the lines of a part: %w", err)
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if n, err := bw.ReadFrom(io.LimitReader(p.body, p.size)); err != nil {
				return err
			} else if n != p.size {
				return fmt.Errorf("mementomap: the lines of a part: read %d bytes of %d", n, p.size)
			}
		}
		pending = lineGroup{append(pending.key[:0], p.last.key...), p.last.m, p.last.r}
	}
	if have {
		if err := write(pending); err != nil {
			return err
		}
	}
	return bw.Flush()
}
