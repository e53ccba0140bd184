package summary

import (
	"errors"
	"io"
	"unsafe"

	"github.com/mementokit/mementokit/cdxj"
)

// b2s views b as a string without copying; the string must not outlive b's
// contents (Capture strings are only read during Add).
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// CaptureOf fills c from a cdxj record. The strings alias the record's line:
// they are valid as long as the record is. It does not allocate.
func CaptureOf(c *Capture, r *cdxj.Record) {
	c.IndexKey = b2s(r.Key())
	c.Timestamp = b2s(r.Timestamp())
	c.URL = b2s(r.URL())
	c.MIME = b2s(r.MIME())
	c.Status = r.Status()
	if n, ok := r.Length(); ok {
		c.Length = n
	} else {
		c.Length = -1
	}
	c.Filename = b2s(r.Filename())
	c.Revisit = r.IsRevisit()
}

// AddRecord counts one cdxj record (see Add). A CDXJ record whose status is
// unknown because its JSON block is malformed gives the block's
// *cdxj.ParseError (naming line and column) and is not counted.
func (s *Summarizer) AddRecord(r *cdxj.Record) error {
	var c Capture
	c.IndexKey = b2s(r.Key())
	c.Timestamp = b2s(r.Timestamp())
	c.Status = r.Status()
	if c.Status == 0 && r.IsCDXJ() {
		if err := r.CheckJSON(); err != nil {
			return err
		}
	}
	if c.Status < 200 || c.Status > 299 {
		s.stats.NotOK++
		s.warn(0, "capture not counted: status not 2xx or unknown", &c)
		return nil
	}
	c.URL = b2s(r.URL())
	c.MIME = b2s(r.MIME())
	if n, ok := r.Length(); ok {
		c.Length = n
	} else {
		c.Length = -1
	}
	return s.Add(&c)
}

// ReadIndex summarizes a whole CDX or CDXJ stream read with package cdxj
// (classic CDX layouts from the " CDX" legend or the field count, CDXJ of
// pywb, Common Crawl and ipwb flavours; "!" header lines are skipped). name
// is used in errors. Lines that cdxj cannot parse, and CDXJ lines whose JSON
// is malformed, are errors naming the line; with skipBad they are counted in
// Stats.BadLines instead and reading goes on. A read error ends the stream.
// It makes no allocation per line.
func (s *Summarizer) ReadIndex(r io.Reader, name string, skipBad bool) error {
	rd := cdxj.NewReader(r)
	rd.ReuseRecord = true
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = s.AddRecord(rec)
		}
		if err != nil {
			var pe *cdxj.ParseError
			if !errors.As(err, &pe) {
				return err // a read or write error
			}
			if !skipBad {
				return &ParseError{Name: name, Line: pe.Line, Err: err}
			}
			s.stats.BadLines++
			if s.opts.Logger != nil && s.stats.BadLines == 1 {
				s.opts.Logger.Warn("summary: skipped a bad index line (first occurrence; see Stats.BadLines)", "file", name, "err", err)
			}
		}
	}
}
