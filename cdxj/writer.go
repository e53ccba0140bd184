package cdxj

import (
	"bufio"
	"io"
	"strconv"
)

// A Writer writes records as CDXJ lines, "key timestamp {json}\n", the
// format of pywb and OpenWayback 3 (IIPC "OpenWayback CDXJ File Format"):
// the JSON block carries the well-known values under pywb's names, in this
// order, each only when known: url, mime, status, digest, length, offset,
// filename, then redirect and robotflags, then for the 14-column layout
// orig.length, orig.offset and orig.filename, then the other columns of a
// classic CDX record ([Record.OtherColumns]: wget's u column as
// "warc_record_id"), so that no column is lost. Numbers are written as JSON
// strings, as pywb does ("status": "200"). The other members of a CDXJ
// source record's JSON block follow unchanged, in their order.
//
// A space in a key is written as %20 so that the line still splits on its
// first two spaces (a line break as %0A or %0D; an empty key as "-"). Writes are buffered: call Flush at the end, then check
// its error. Memory: a 64 KiB buffer plus the longest line written.
type Writer struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// WriteHeader writes one header line such as `!meta {"generator": "x"}`;
// write headers before the records. line must start with '!' and hold no
// "\n" or "\r" (ErrBadHeader).
func (w *Writer) WriteHeader(line string) error {
	if w.err != nil {
		return w.err
	}
	if len(line) == 0 || line[0] != '!' {
		return ErrBadHeader
	}
	for i := 0; i < len(line); i++ {
		if line[i] == '\n' || line[i] == '\r' {
			return ErrBadHeader
		}
	}
	if _, err := w.w.WriteString(line); err != nil {
		w.err = err
		return err
	}
	w.err = w.w.WriteByte('\n')
	return w.err
}

// Write writes rec as one CDXJ line under its own key. It returns the
// *ParseError of a CDXJ record whose JSON block is malformed (nothing is
// written then), or the error of the underlying writer, which is sticky.
func (w *Writer) Write(rec *Record) error { return w.WriteKey(rec.Key(), rec) }

// WriteKey is Write with key in place of rec.Key(), for a caller that
// computed a SURT for a record keyed by its URL. Its errors are Write's:
// the *ParseError of a malformed JSON block (nothing written, the Writer
// still usable), or the underlying writer's error, which is sticky.
func (w *Writer) WriteKey(key []byte, rec *Record) error {
	if w.err != nil {
		return w.err
	}
	b, err := AppendLine(w.buf[:0], key, rec)
	if err != nil {
		return err
	}
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = err
	}
	return w.err
}

// Flush writes any buffered data to the underlying writer and returns the
// first error of any write.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}

// Error returns the first error that occurred during a write or flush.
func (w *Writer) Error() error { return w.err }

// AppendLine appends to dst the CDXJ line of rec under key (rec.Key() when
// key is nil), newline included, as Writer writes it, and returns the
// extended slice. It fails, returning dst unchanged, with the *ParseError of
// a CDXJ record whose JSON block is malformed.
func AppendLine(dst, key []byte, rec *Record) ([]byte, error) {
	if key == nil {
		key = rec.Key()
	}
	start := len(dst)
	if len(key) == 0 {
		key = []byte("-")
	}
	dst = appendEscapedKey(dst, key)
	dst = append(dst, ' ')
	dst = append(dst, rec.Timestamp()...)
	dst = append(dst, " {"...)
	first := true
	member := func(name string, v []byte) {
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = appendJSONString(dst, name)
		dst = append(dst, ": "...)
		dst = appendJSONString(dst, v)
	}
	var used [numFields]string // the JSON member each value came from
	for _, f := range [...]field{fURL, fMIME, fStatus, fDigest, fLength, fOffset, fFilename, fRedirect, fRobots} {
		v, from := rec.getNamed(f)
		if v == nil {
			continue // an unusable value (an object, null, "-") stays among the other members
		}
		used[f] = from
		member(jsonNames[f][0], v)
	}
	if l, o, fn, ok := rec.Original(); ok {
		member("orig.length", strconv.AppendInt(nil, l, 10))
		member("orig.offset", strconv.AppendInt(nil, o, 10))
		member("orig.filename", fn)
	}
	rec.OtherColumns(func(name string, v []byte) bool {
		member(name, v)
		return true
	})
	err := rec.Fields(func(k, raw []byte) bool {
		for _, u := range used {
			if u != "" && string(k) == u {
				return true
			}
		}
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, k...)
		dst = append(dst, `": `...)
		dst = append(dst, raw...)
		return true
	})
	if err != nil {
		return dst[:start], err
	}
	dst = append(dst, "}\n"...)
	return dst, nil
}

// appendJSONString appends s as a JSON string (RFC 8259 section 7),
// escaping quotes, backslashes and control characters.
func appendJSONString[T string | []byte](dst []byte, s T) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
		i++
	}
	dst = append(dst, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
