package aggregator

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// fastPageLimit is the largest TimeMap page read into memory for the fast
// path (readPage): 4 MiB, about 30,000 memento links. Larger pages are
// streamed through the general reader, whose memory does not grow with
// the page.
const fastPageLimit = 4 << 20

var pagePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// errReader returns err once the bytes before it are read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// readPrefix reads r up to fastPageLimit+1 bytes into buf. It returns the
// reader the general path must use to see the whole body (buf's bytes,
// then the rest of r, then any read error), and whether buf holds the
// whole body.
func readPrefix(buf *bytes.Buffer, r io.Reader) (io.Reader, bool) {
	_, err := buf.ReadFrom(io.LimitReader(r, fastPageLimit+1))
	rest := io.MultiReader(bytes.NewReader(buf.Bytes()), r)
	if err != nil {
		return io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{err}), false
	}
	return rest, buf.Len() <= fastPageLimit
}

// fastPage parses a whole TimeMap page when every link-value has the plain
// shape archives write (RFC 8288 §3 without its rarer forms):
//
//	<http://...>; rel="memento"; datetime="Tue, 20 Jun 2000 18:02:59 GMT",
//
// an absolute http or https target of printable ASCII, parameters
// "; name=value" with a token or a quoted value without backslashes and
// no whitespace around '=', links separated by ',' and whitespace. Its
// results are those of the general reader (memento.Reader) on the same
// input, as timeMapPage uses them (FuzzFastPageMatchesReader); on anything
// else ok is false and the caller uses the general reader.
//
// The URI-Ms and page links are substrings of one string copy of b, made
// at the first one: one allocation per page instead of one per memento
// (a kept memento keeps the page's text alive, about 1.5 times its
// URI-M).
func fastPage(b []byte) (ms []memento.Memento, next []string, links int, ok bool) {
	var page string                    // string(b), once needed
	str := func(from, to int) string { // string(b[from:to])
		if page == "" {
			page = string(b)
		}
		return page[from:to]
	}
	for i := skipOWS(b, 0); i < len(b); i = skipOWS(b, i) {
		if b[i] != '<' {
			return nil, nil, 0, false
		}
		j := bytes.IndexByte(b[i+1:], '>')
		if j < 0 {
			return nil, nil, 0, false
		}
		tFrom, tTo := i+1, i+1+j
		target := b[tFrom:tTo]
		if !plainTarget(target) {
			return nil, nil, 0, false
		}
		i += j + 2
		var rel, dt []byte
		haveRel, haveDT := false, false
		for {
			i = skipOWS(b, i)
			if i >= len(b) {
				break
			}
			if b[i] == ',' {
				i++
				break
			}
			if b[i] != ';' {
				return nil, nil, 0, false
			}
			i = skipOWS(b, i+1)
			n := i
			for n < len(b) && isTokenChar(b[n]) {
				n++
			}
			if n == i || n >= len(b) || b[n] != '=' {
				return nil, nil, 0, false
			}
			name := b[i:n]
			i = n + 1
			var val []byte
			if i < len(b) && b[i] == '"' {
				e := bytes.IndexByte(b[i+1:], '"')
				if e < 0 {
					return nil, nil, 0, false
				}
				val = b[i+1 : i+1+e]
				if bytes.IndexByte(val, '\\') >= 0 {
					return nil, nil, 0, false
				}
				i += e + 2
			} else {
				v := i
				for i < len(b) && isTokenChar(b[i]) {
					i++
				}
				if i == v {
					return nil, nil, 0, false
				}
				val = b[v:i]
			}
			switch {
			case !haveRel && bytes.EqualFold(name, []byte("rel")):
				rel, haveRel = val, true
			case !haveDT && bytes.EqualFold(name, []byte("datetime")):
				dt, haveDT = val, true
			}
		}
		var isMemento, isOriginal, isTimeMap, isTimeGate, isSelf bool
		for rest := rel; len(rest) > 0; {
			rest = rest[skipOWS(rest, 0):]
			e := 0
			for e < len(rest) && rest[e] != ' ' && rest[e] != '\t' && rest[e] != '\r' && rest[e] != '\n' {
				e++
			}
			tok := rest[:e]
			rest = rest[e:]
			switch {
			case bytes.EqualFold(tok, []byte("memento")):
				isMemento = true
			case bytes.EqualFold(tok, []byte("original")):
				isOriginal = true
			case bytes.EqualFold(tok, []byte("timemap")):
				isTimeMap = true
			case bytes.EqualFold(tok, []byte("timegate")):
				isTimeGate = true
			case bytes.EqualFold(tok, []byte("self")):
				isSelf = true
			}
		}
		if isOriginal || isMemento || isTimeMap || isTimeGate || isSelf {
			links++
		}
		switch {
		case isMemento:
			var t time.Time // zero without a readable datetime: left out and counted by the search
			if haveDT {
				var ok bool
				if t, ok = strictHTTPDate(dt); !ok { // UTC, whole seconds
					if lt, err := memento.ParseHTTPDateLenient(string(dt)); err == nil {
						t = lt.UTC().Truncate(time.Second)
					}
				}
			}
			if ms == nil {
				ms = make([]memento.Memento, 0, bytes.Count(b[i:], []byte{'<'})+1) // this one, at most one per link left
			}
			ms = append(ms, memento.Memento{URIM: str(tFrom, tTo), Datetime: t})
		case isTimeMap && !isSelf:
			next = append(next, str(tFrom, tTo))
		}
	}
	return ms, next, links, true
}

func skipOWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// plainTarget: an absolute http or https URL (lower-case scheme) of
// printable ASCII without '<' or '"', which the general reader keeps byte
// for byte.
func plainTarget(t []byte) bool {
	if !bytes.HasPrefix(t, []byte("http://")) && !bytes.HasPrefix(t, []byte("https://")) {
		return false
	}
	for _, c := range t {
		if c <= ' ' || c >= 0x7f || c == '<' || c == '"' {
			return false
		}
	}
	return true
}

// isTokenChar: RFC 9110 §5.6.2 tchar.
func isTokenChar(c byte) bool { return tchar[c] }

var tchar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
	}
	return t
}()

// strictHTTPDate reads the RFC 7089 §2.1.1 form "Mon, 02 Jan 2006
// 15:04:05 GMT" without allocating, with time.Parse(http.TimeFormat)'s
// rules (the weekday name must be one, its value is not checked; fields
// must be in range); ok is false for anything else, which the caller
// hands to memento.ParseHTTPDateLenient.
func strictHTTPDate(b []byte) (time.Time, bool) {
	if len(b) != 29 || b[3] != ',' || b[4] != ' ' || b[7] != ' ' || b[11] != ' ' || b[16] != ' ' ||
		b[19] != ':' || b[22] != ':' || b[25] != ' ' || b[26] != 'G' || b[27] != 'M' || b[28] != 'T' {
		return time.Time{}, false
	}
	switch string(b[:3]) {
	case "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat":
	default:
		return time.Time{}, false
	}
	mon := 0
	switch string(b[8:11]) {
	case "Jan":
		mon = 1
	case "Feb":
		mon = 2
	case "Mar":
		mon = 3
	case "Apr":
		mon = 4
	case "May":
		mon = 5
	case "Jun":
		mon = 6
	case "Jul":
		mon = 7
	case "Aug":
		mon = 8
	case "Sep":
		mon = 9
	case "Oct":
		mon = 10
	case "Nov":
		mon = 11
	case "Dec":
		mon = 12
	default:
		return time.Time{}, false
	}
	num := func(p []byte) int {
		n := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	day, year, hh, mm, ss := num(b[5:7]), num(b[12:16]), num(b[17:19]), num(b[20:22]), num(b[23:25])
	if day < 1 || day > daysIn(mon, year) || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59 {
		return time.Time{}, false // 31 Apr and the like too
	}
	if year == 1 && mon == 1 && day == 1 && hh == 0 && mm == 0 && ss == 0 {
		return time.Time{}, false // the zero time, which the lenient parser refuses
	}
	return time.Unix(daysFromCivil(year, mon, day)*86400+int64(hh*3600+mm*60+ss), 0).UTC(), true
}

// daysIn is the number of days of month (1-12) in year (Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
