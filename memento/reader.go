package memento

import (
	"errors"
	"io"
	"log/slog"
)

// DefaultMaxLinkBytes is the default limit on the size of one link-value
// for Reader (1 MiB); a TimeMap body may be any size.
const DefaultMaxLinkBytes = 1 << 20

// ParseOptions configures link-format parsing. The zero value (and a nil
// *ParseOptions) means lenient parsing without a base URI.
type ParseOptions struct {
	// Base is the URI of the response that carried the links; targets are
	// resolved against it (RFC 3986 §5, RFC 8288 §3.1). Empty: no resolution.
	Base string
	// Strict rejects anything outside the RFC 8288 §3 grammar, naming the
	// byte offset. The default (false) is the lenient mode real archives
	// need: a missing '<...>' around a target (target up to the first ';'),
	// a '>' inside a target, unquoted values that are not tokens
	// ("type=application/link-format"), junk after a value, empty
	// parameters, a missing ',' between link-values (a '<' after white
	// space where a ';' or ',' was due starts the next link) and a UTF-8
	// byte order mark at the start of the input are recovered. Neither mode returns a link with an empty
	// or truncated target.
	Strict bool
	// MaxLinkBytes bounds one link-value for Reader (and so its memory);
	// 0 means DefaultMaxLinkBytes.
	MaxLinkBytes int
	// MaxMementos bounds the mementos ReadTimeMap keeps (0: no limit).
	// Past it ReadTimeMap returns ErrTooManyMementos.
	MaxMementos int
	// Logger, if set, receives a Debug record for every memento link that
	// a lenient TimeMap read drops (bad or missing datetime).
	Logger *slog.Logger
}

func (o *ParseOptions) orDefault() ParseOptions {
	if o == nil {
		return ParseOptions{}
	}
	return *o
}

// ParseLinkFormat parses one Link header field value, or a whole small
// application/link-format document held in memory, into its link-values in
// input order (RFC 8288 §3, RFC 6690 §2). Commas and semicolons inside
// '<...>' targets and quoted strings are data; whitespace, including CR and
// LF, is allowed around '=', ';' and ','; empty list elements are skipped.
// opts may be nil (lenient, no base URI). On a syntax error it returns the
// links parsed before it and a *ParseError naming the byte offset.
// An empty value gives no links and no error.
func ParseLinkFormat(value string, opts *ParseOptions) ([]Link, error) {
	o := opts.orDefault()
	p, err := newParser(o.Strict, o.Base)
	if err != nil {
		return nil, err
	}
	data := []byte(value)
	var links []Link
	var off int
	for {
		l, n, ok, err := p.parseOne(data[off:], true, int64(off), len(links)+1)
		if err != nil {
			return links, err
		}
		if !ok {
			return links, nil
		}
		links = append(links, l)
		off += n
	}
}

// Reader reads link-values one at a time from an application/link-format
// stream, such as a TimeMap body of any size. Its memory is bounded by
// MaxLinkBytes plus one read buffer (32 KiB), whatever the input size.
// Settings must be made before the first call to Read.
type Reader struct {
	opts ParseOptions
	p    *parser
	r    io.Reader

	buf   []byte // buf[start:end] is unparsed input
	start int
	end   int
	off   int64 // absolute offset of buf[start]
	eof   bool
	rerr  error // read error other than io.EOF, returned after buffered data
	links int
	err   error // sticky

	// scratchParams makes Params of returned links share one backing array
	// (see parser.scratch); set by ReadTimeMap only.
	scratchParams bool
}

// NewReader returns a Reader over r; opts may be nil (lenient, no base).
func NewReader(r io.Reader, opts *ParseOptions) *Reader {
	o := opts.orDefault()
	if o.MaxLinkBytes <= 0 {
		o.MaxLinkBytes = DefaultMaxLinkBytes
	}
	return &Reader{opts: o, r: r}
}

// Offset returns the byte offset in the input just after the last link
// returned by Read.
func (r *Reader) Offset() int64 { return r.off }

// Read returns the next link-value. At the end of input it returns io.EOF.
// A syntax error is a *ParseError with the byte offset in the whole stream;
// a link-value longer than MaxLinkBytes gives a *ParseError wrapping
// ErrLinkTooLong; an error of the underlying reader is returned as is.
// After an error, Read keeps returning it.
func (r *Reader) Read() (Link, error) {
	if r.err != nil {
		return Link{}, r.err
	}
	if r.p == nil {
		p, err := newParser(r.opts.Strict, r.opts.Base)
		if err != nil {
			r.err = err
			return Link{}, err
		}
		p.scratch = r.scratchParams
		r.p = p
		r.buf = make([]byte, 32<<10)
	}
	for {
		// After a read error the data may end inside a link-value: never
		// parse it as if the input ended there.
		atEOF := r.eof && r.rerr == nil
		l, n, ok, err := r.p.parseOne(r.buf[r.start:r.end], atEOF, r.off, r.links+1)
		if err == errShort {
			if r.rerr != nil {
				r.err = r.rerr
				return Link{}, r.err
			}
			if ferr := r.fill(); ferr != nil {
				r.err = ferr
				return Link{}, ferr
			}
			continue
		}
		if err != nil {
			r.err = err
			return Link{}, err
		}
		if ok && n > r.opts.MaxLinkBytes {
			r.err = r.tooLong()
			return Link{}, r.err
		}
		r.start += n
		r.off += int64(n)
		if !ok {
			if r.rerr != nil {
				r.err = r.rerr
			} else {
				r.err = io.EOF
			}
			return Link{}, r.err
		}
		r.links++
		return l, nil
	}
}

// fill reads more input, compacting or growing the buffer as needed. It
// reads at least as many new bytes as were already waiting (or until the
// buffer is full or the input ends), so that re-parsing a long link-value
// after each fill costs linear, not quadratic, time on a reader that
// returns a few bytes per call.
func (r *Reader) fill() error {
	if r.eof {
		// parseOne never reports errShort at EOF; be safe anyway.
		return io.ErrUnexpectedEOF
	}
	waiting := r.end - r.start
	if waiting > r.opts.MaxLinkBytes {
		return r.tooLong()
	}
	if r.start > 0 {
		copy(r.buf, r.buf[r.start:r.end])
		r.end -= r.start
		r.start = 0
	}
	if r.end == len(r.buf) {
		if len(r.buf) >= r.opts.MaxLinkBytes+1 {
			return r.tooLong()
		}
		nb := min(2*len(r.buf), r.opts.MaxLinkBytes+1)
		b := make([]byte, nb)
		copy(b, r.buf[:r.end])
		r.buf = b
	}
	got, empty := 0, 0
	for r.end < len(r.buf) && (got == 0 || got < waiting) {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		got += n
		if err != nil {
			r.eof = true
			if !errors.Is(err, io.EOF) {
				r.rerr = err
			}
			return nil
		}
		if n == 0 {
			if empty++; empty > 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// tooLong reports ErrLinkTooLong at the first byte of the pending
// link-value (after separators).
func (r *Reader) tooLong() error {
	at := r.start
	for at < r.end && (isWS(r.buf[at]) || r.buf[at] == ',') {
		at++
	}
	return &ParseError{Offset: r.off + int64(at-r.start), Link: r.links + 1, Err: ErrLinkTooLong}
}

// ReadAll reads the remaining link-values. It returns the links read and
// the first error other than io.EOF.
func (r *Reader) ReadAll() ([]Link, error) {
	var links []Link
	for {
		l, err := r.Read()
		if err == io.EOF {
			return links, nil
		}
		if err != nil {
			return links, err
		}
		links = append(links, l)
	}
}
