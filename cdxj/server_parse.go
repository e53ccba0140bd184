package cdxj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The answers of CDX servers, turned into index lines:
//
//   - pywb and the Common Crawl index server, output=json: one JSON object
//     per line, {"urlkey": ..., "timestamp": ..., "url": ..., ...}. Each
//     becomes the CDXJ line "urlkey timestamp {the other members}", the
//     members as written and in their order, separated by ", " as
//     Common Crawl's own cdx-*.gz lines are.
//   - the Internet Archive's CDX server and OutbackCDX, output=json: one
//     JSON array of rows, the first naming the fields
//     (["urlkey","timestamp","original",...]), each row a classic CDX line
//     whose layout the first row gives; the Internet Archive ends a
//     batch cut by its limit with an empty row and a row holding the
//     resume key.
//   - the text answers (the Internet Archive's and OutbackCDX's default):
//     the lines as they are, a resume key after a blank line.

// errResponse is wrapped by the errors about an answer that is not what
// the CDX server API promises (not JSON where JSON was asked for, a row
// that is not an array of values, ...).
var errResponse = errors.New("malformed answer")

// appendObjectLine appends to dst the CDXJ line of one pywb output=json
// object (without a line terminator). An error wraps errResponse.
func appendObjectLine(dst, obj []byte) ([]byte, error) {
	var c objectConv
	return c.append(dst, obj)
}

// objectConv converts pywb output=json objects to CDXJ lines, reusing its
// buffers from line to line.
type objectConv struct {
	x       jsonIndex
	scratch []byte
}

func (c *objectConv) append(dst, obj []byte) ([]byte, error) {
	x := &c.x
	x.reset()
	for x.scanNext(obj) {
	}
	if x.state == jsonBad {
		return dst, fmt.Errorf("%w: column %d: %s", errResponse, x.errPos+1, x.errMsg)
	}
	var key, ts []byte
	c.scratch = c.scratch[:0]
	for _, m := range x.members {
		switch string(obj[m.ks:m.ke]) {
		case "urlkey", "timestamp":
			v := obj[m.vs:m.ve]
			if len(v) > 0 && v[0] == '"' {
				s, sc, ok := unquote(v, c.scratch)
				if !ok {
					return dst, fmt.Errorf("%w: bad string in %s", errResponse, obj[m.ks-1:m.ke+1])
				}
				c.scratch, v = sc, s
			}
			if obj[m.ks] == 'u' {
				key = v
			} else {
				ts = v
			}
		}
	}
	if len(key) == 0 {
		return dst, fmt.Errorf("%w: an object without \"urlkey\"", errResponse)
	}
	if len(ts) == 0 {
		return dst, fmt.Errorf("%w: an object without \"timestamp\"", errResponse)
	}
	dst = appendEscapedKey(dst, key)
	dst = append(dst, ' ')
	dst = appendEscapedKey(dst, ts) // a timestamp with a space or a line break stays one field
	dst = append(dst, " {"...)
	first := true
	for _, m := range x.members {
		switch string(obj[m.ks:m.ke]) {
		case "urlkey", "timestamp":
			continue
		}
		if !first {
			dst = append(dst, ", "...)
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, obj[m.ks:m.ke]...)
		dst = append(dst, `": `...)
		dst = append(dst, obj[m.vs:m.ve]...)
	}
	return append(dst, '}'), nil
}

// appendEscapedKey appends a key with its spaces and line breaks
// percent-encoded, as Writer writes keys.
func appendEscapedKey[T ~string | ~[]byte](dst []byte, key T) []byte {
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch c {
		case ' ':
			dst = append(dst, "%20"...)
		case '\n':
			dst = append(dst, "%0A"...)
		case '\r':
			dst = append(dst, "%0D"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// fieldLetters maps the field names of the CDX server APIs to the letters
// of the CDX legend (see Layout).
var fieldLetters = map[string]string{
	"urlkey": "N", "timestamp": "b", "original": "a", "url": "a", "mimetype": "m", "mime": "m",
	"statuscode": "s", "status": "s", "digest": "k", "redirect": "r", "redirecturl": "r",
	"robotflags": "M", "length": "S", "offset": "V", "filename": "g",
}

// layoutForFields returns the Layout of text lines holding the named
// fields in that order (the first row of a JSON answer, or fl=). A layout
// without urlkey or timestamp gives an error wrapping errResponse: its
// lines cannot be records.
func layoutForFields(names []string) (*Layout, error) {
	letters := make([]string, len(names))
	for i, n := range names {
		l, ok := fieldLetters[n]
		if !ok {
			l = "-" // a column the reader passes over
		}
		letters[i] = l
	}
	l, err := ParseLayout("CDX " + strings.Join(letters, " "))
	if err != nil || l.idx[fKey] < 0 || l.idx[fTimestamp] < 0 || !l.KeyIsSURT() {
		return nil, fmt.Errorf("%w: fields %s have no urlkey and timestamp, so they are not index lines", errResponse, strings.Join(names, ","))
	}
	return l, nil
}

// rowReader reads a JSON array of rows (arrays of strings, numbers and
// nulls), the output=json answer of the Internet Archive's CDX server and
// OutbackCDX, one row at a time in bounded memory: the decoder's buffer
// and the longest row. The decoder reads through a rowLimit, so that one
// value longer than a row may be (a string without end) is an error once
// the row's bytes are read, not buffered whole first.
type rowReader struct {
	dec     *json.Decoder
	lim     *rowLimit
	max     int
	started bool
	done    bool
	row     []string
}

func newRowReader(r io.Reader, maxRow int) *rowReader {
	lim := &rowLimit{r: r, end: -1}
	d := json.NewDecoder(lim)
	d.UseNumber()
	return &rowReader{dec: d, lim: lim, max: maxRow}
}

// rowLimitSlack is how far past a row's longest end the decoder may read
// ahead: the start of the rows after it.
const rowLimitSlack = 64 << 10

// rowLimit passes reads through until byte end of the answer (-1: no
// end), then fails them with err.
type rowLimit struct {
	r   io.Reader
	n   int64 // bytes read
	end int64
	err error
}

func (l *rowLimit) Read(p []byte) (int, error) {
	if l.end >= 0 {
		if l.n >= l.end {
			return 0, l.err
		}
		if rest := l.end - l.n; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	k, err := l.r.Read(p)
	l.n += int64(k)
	return k, err
}

// limitRow lets the decoder read the row that starts at byte start and
// rowLimitSlack bytes past its longest end.
func (rr *rowReader) limitRow(start int64) {
	rr.lim.end = start + int64(rr.max) + rowLimitSlack
	rr.lim.err = fmt.Errorf("%w: a row at byte %d is longer than %d bytes", ErrLineTooLong, start, rr.max)
}

// next returns the next row (nil values as ""), valid until the next
// call, or io.EOF after the closing bracket of the array. A malformed
// answer is an error wrapping errResponse; an answer cut short gives
// io.ErrUnexpectedEOF.
func (rr *rowReader) next() ([]string, error) {
	if rr.done {
		return nil, io.EOF
	}
	tok := func() (json.Token, error) {
		t, err := rr.dec.Token()
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: byte %d: %v", errResponse, se.Offset, err)
		}
		return t, err
	}
	if !rr.started {
		t, err := rr.dec.Token()
		if err == io.EOF {
			// An empty body: OutbackCDX answers so when nothing matched.
			rr.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errResponse, err)
		}
		if d, ok := t.(json.Delim); !ok || d != '[' {
			return nil, fmt.Errorf("%w: the answer is not a JSON array (starts with %v)", errResponse, t)
		}
		rr.started = true
	}
	start := rr.dec.InputOffset()
	rr.limitRow(start)
	t, err := tok()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); ok && d == ']' {
		rr.done = true
		if _, err := rr.dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("%w: text after the closing ']' of the answer", errResponse)
		}
		return nil, io.EOF
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%w: byte %d: a row is not an array (%v)", errResponse, start, t)
	}
	rr.row = rr.row[:0]
	for {
		t, err := tok()
		if err != nil {
			return nil, err
		}
		if rr.dec.InputOffset()-start > int64(rr.max) {
			return nil, fmt.Errorf("%w: a row at byte %d is longer than %d bytes", ErrLineTooLong, start, rr.max)
		}
		switch v := t.(type) {
		case json.Delim:
			if v == ']' {
				return rr.row, nil
			}
			return nil, fmt.Errorf("%w: byte %d: a row holds a nested %v", errResponse, rr.dec.InputOffset(), v)
		case string:
			rr.row = append(rr.row, v)
		case json.Number:
			rr.row = append(rr.row, v.String())
		case nil:
			rr.row = append(rr.row, "")
		case bool:
			rr.row = append(rr.row, fmt.Sprint(v))
		}
	}
}

// appendRowLine appends to dst the text line of one row: its values
// joined by single spaces, "-" for an empty value, a space inside a value
// other than the MIME type (column mime, -1 for none) written %20.
func appendRowLine(dst []byte, row []string, mime int) []byte {
	for i, v := range row {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if v == "" {
			dst = append(dst, '-')
			continue
		}
		for j := 0; j < len(v); j++ {
			switch c := v[j]; {
			case c == ' ' && i != mime:
				dst = append(dst, "%20"...)
			case c == '\n':
				dst = append(dst, "%0A"...)
			case c == '\r':
				dst = append(dst, "%0D"...)
			default:
				dst = append(dst, c)
			}
		}
	}
	return dst
}

// isHeaderRow reports whether row names fields rather than holding a
// capture: its first value is a field name where a key would be.
func isHeaderRow(row []string) bool {
	return len(row) > 1 && (row[0] == "urlkey" || row[0] == "timestamp" || row[0] == "original") && !strings.ContainsAny(row[0], ",)")
}

// outbackWarning starts the line OutbackCDX appends to an answer when it
// failed part way through the captures.
const outbackWarning = "warning: output may be incomplete"

// parsePageCount reads a showNumPages answer: pywb's JSON object
// {"pages": P, "pageSize": S, "blocks": B} or the bare number of pages the
// Internet Archive's CDX server gives. ok is false when body is neither.
func parsePageCount(body []byte) (pc PageCount, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '{' {
		var v struct {
			Pages    *int `json:"pages"`
			PageSize int  `json:"pageSize"`
			Blocks   int  `json:"blocks"`
		}
		if json.Unmarshal(body, &v) != nil || v.Pages == nil || *v.Pages < 0 {
			return PageCount{}, false
		}
		return PageCount{Pages: *v.Pages, PageSize: v.PageSize, Blocks: v.Blocks}, true
	}
	n := 0
	if len(body) == 0 || len(body) > 12 {
		return PageCount{}, false
	}
	for _, c := range body {
		if c < '0' || c > '9' {
			return PageCount{}, false
		}
		n = n*10 + int(c-'0')
	}
	return PageCount{Pages: n}, true
}

// serverMessage returns the message of an error answer: pywb's
// {"message": "..."} (also Common Crawl's), else the start of the body as
// text.
func serverMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	var v struct {
		Message string `json:"message"`
		Error   string `json:"error"`
	}
	if len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &v) == nil {
		if v.Message != "" {
			return v.Message
		}
		if v.Error != "" {
			return v.Error
		}
	}
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
