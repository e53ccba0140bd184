package summary

import (
	"bytes"
	"context"
	"errors"
	"strings"
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
	if js := r.JSON(); js != nil && fastFields(js, &c) {
		return s.add(&c)
	}
	c.Status = r.Status()
	if c.Status == 0 && r.IsCDXJ() {
		if err := r.CheckJSON(); err != nil {
			return err
		}
		if bytes.Contains(r.JSON(), []byte(`"status`)) {
			c.Status = paddedStatus(r)
		}
	}
	if c.Status < 200 || c.Status > 299 {
		return s.add(&c)
	}
	c.URL = b2s(r.URL())
	c.MIME = b2s(r.MIME())
	if n, ok := r.Length(); ok {
		c.Length = n
	} else {
		c.Length = -1
	}
	return s.add(&c)
}

// fastFields reads status, url, mime and length from a CDXJ JSON block in
// one pass, for the common case: a flat object whose members of interest
// are plain strings without escapes, or numbers. It returns false, leaving
// the work to package cdxj, whenever anything else is met (escapes, nested
// values before the last needed member, a malformed block, ipwb names), so
// it never decides differently from cdxj.
func fastFields(b []byte, c *Capture) bool {
	const (
		haveURL = 1 << iota
		haveMIME
		haveStatus
		haveLength
		all = haveURL | haveMIME | haveStatus | haveLength
	)
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	var have int
	status, length := []byte(nil), []byte(nil)
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != '"' {
			return false
		}
		ke := indexQuote(b, i+1)
		if ke < 0 {
			return false
		}
		key := b[i+1 : ke]
		i = skipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false
		}
		var val []byte
		if b[i] == '"' {
			ve := indexQuote(b, i+1)
			if ve < 0 {
				return false
			}
			val = b[i+1 : ve]
			i = ve + 1
		} else {
			j := i
			for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' {
				if b[j] == '{' || b[j] == '[' || b[j] == '"' {
					return false
				}
				j++
			}
			val = b[i:j]
			if len(val) == 0 {
				return false // malformed: let cdxj report it
			}
			if string(val) == "null" {
				val = nil
			}
			i = j
		}
		var bit int
		switch string(key) {
		case "url":
			bit = haveURL
		case "mime":
			bit = haveMIME
		case "status":
			bit = haveStatus
		case "length":
			bit = haveLength
		}
		if bit != 0 && have&bit == 0 {
			have |= bit
			if len(val) == 1 && val[0] == '-' {
				val = nil
			}
			switch bit {
			case haveURL:
				c.URL = b2s(val)
			case haveMIME:
				c.MIME = b2s(val)
			case haveStatus:
				status = val
			case haveLength:
				length = val
			}
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
		i++
		if have == all {
			break // the rest is left unscanned, as cdxj leaves it
		}
	}
	if have&haveStatus == 0 {
		return false // perhaps ipwb's status_code, or a malformed block: ask cdxj
	}
	c.Status = parseStatus(status)
	if c.Status >= 200 && c.Status <= 299 && (have&haveURL == 0 || have&haveMIME == 0) {
		return false // a counted capture without url or mime: let cdxj try the other names
	}
	c.Length = -1
	if n := len(length); n > 0 && n <= 18 {
		var v int64
		for _, d := range length {
			if d < '0' || d > '9' {
				v = -1
				break
			}
			v = v*10 + int64(d-'0')
		}
		c.Length = v
	}
	return true
}

// parseStatus parses an HTTP status code of three digits (100 to 999),
// ignoring surrounding blanks ("200 " as some indexers write it); 0 when
// it is anything else.
func parseStatus(v []byte) int {
	v = bytes.Trim(v, " \t")
	if len(v) == 3 && v[0] >= '1' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9' && v[2] >= '0' && v[2] <= '9' {
		return int(v[0]-'0')*100 + int(v[1]-'0')*10 + int(v[2]-'0')
	}
	return 0
}

// RecordStatus returns the HTTP status of r as summaries and Daily count
// it: cdxj.Record.Status, or for a CDXJ record whose status member is a
// quoted number with blanks ("200 ", as some indexers write it) that
// number; 0 when unknown.
func RecordStatus(r *cdxj.Record) int {
	st := r.Status()
	if st == 0 && r.IsCDXJ() && bytes.Contains(r.JSON(), []byte(`"status`)) {
		st = paddedStatus(r)
	}
	return st
}

// paddedStatus finds the status member of a CDXJ block that package cdxj
// read as unknown and parses it with parseStatus, so that a quoted status
// with blanks ("200 ") counts whichever path reads the line.
func paddedStatus(r *cdxj.Record) int {
	st := 0
	r.Fields(func(key, raw []byte) bool {
		switch string(key) {
		case "status", "status_code", "statuscode":
			if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
				raw = raw[1 : len(raw)-1]
			}
			st = parseStatus(raw)
			return false
		}
		return true
	})
	return st
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// indexQuote returns the index of the closing quote of a string whose text
// starts at i, or -1 when there is none or the string has an escape.
func indexQuote(b []byte, i int) int {
	j := bytes.IndexByte(b[i:], '"')
	if j < 0 || bytes.IndexByte(b[i:i+j], '\\') >= 0 {
		return -1
	}
	return i + j
}

// ReadIndex summarizes a whole index, walked with Records(cdxj.Query{}):
// a file, a ZipNum cluster, a stream, whatever cdxj.Open opens (classic CDX
// layouts from the " CDX" legend or the field count, CDXJ of pywb, Common
// Crawl and ipwb flavours; "!" header lines are skipped). Lines that cdxj
// cannot parse, and CDXJ lines whose JSON is malformed, are errors naming
// the source and line (a *ParseError wrapping the *cdxj.ParseError); with
// skipBad they are counted in Stats.BadLines instead (the first five in
// Stats.BadExamples) and reading goes on. Blank (empty) lines are no
// error: they are counted in Stats.BlankLines. Any other error of the input (an
// unreadable file, a corrupt gzip member) ends it and is returned.
// ctx cancels the walk between records. It makes no allocation per line.
//
// Without Options.Grouped, a plain file or a ZipNum cluster is cut into
// parts (cdxj.Plan) read on Options.Workers goroutines at once, each into
// a Summarizer of its own, added up in part order: the summary, its
// stats and its note are those of one sequential walk.
func (s *Summarizer) ReadIndex(ctx context.Context, src cdxj.Searcher, skipBad bool) error {
	if ix, ok := src.(cdxj.Index); ok && !s.opts.Grouped {
		if w := s.workers(); w > 1 {
			if done, err := s.readParallel(ctx, ix, skipBad, w); done || err != nil {
				return err
			}
		}
	}
	return s.read(ctx, src.Records(cdxj.Query{Blank: &s.stats.BlankLines}), skipBad)
}

// badLine returns the error to stop with for err met while reading an
// index: every error that is not about one line, and every bad line when
// skipBad is false (as a *ParseError). A bad line under skipBad is counted
// in *n and, among the first five, recorded in *examples.
func badLine(err error, skipBad bool, n *int64, examples *[]string) error {
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) {
		return err // names its source already
	}
	if !skipBad {
		return &ParseError{Name: pe.Source, Line: pe.Line, Err: err}
	}
	*n++
	if len(*examples) < 5 {
		*examples = append(*examples, strings.TrimPrefix(err.Error(), "cdxj: "))
	}
	return nil
}
