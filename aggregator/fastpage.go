package aggregator

import (
	"strings"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/httptoken"
	"github.com/mementokit/mementokit/memento"
)

// fastPage parses a TimeMap page held in memory when every link-value has
// the plain shape archives write (RFC 8288 §3 without its rarer forms):
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
// cut says that b is the start of a body whose reading failed after it
// (a cap, a broken connection): then only the link-values followed by
// their ',' are read, as the general reader gives them before it returns
// the read error (FuzzFastPageCutMatchesReader), and the rest of b is
// ignored.
//
// The URI-Ms and page links are substrings of b (no copy per link: a kept
// memento keeps the page's text alive, about 1.5 times its URI-M); the
// memento slice grows with the mementos read (growMementos).
func fastPage(b string, cut bool) (ms []memento.Memento, next []string, links int, ok bool) {
	return fastPageInto(b, cut, nil, 0, 0, &pageState{})
}

// pageState is what the parse of one body keeps from link to link.
type pageState struct {
	days dayCache
	// unclean counts the mementos whose URI-M or datetime the aggregator's
	// check of an archive's answer (cleanMementos) would change or leave
	// out; with none, it would return the list as it is.
	unclean int
}

// fastChunks is fastPage over a body read in chunks (readBody): the
// chunks of an aligned body, link-values whole, are parsed one by one,
// cut applying to the last, and give what fastPage gives on their
// concatenation (FuzzFastChunksMatchReader); a body of several chunks
// not aligned is no plain page (ok false), for the general reader.
func fastChunks(chunks []string, aligned, cut bool) (ms []memento.Memento, next []string, links int, ok bool) {
	return fastChunksState(chunks, aligned, cut, &pageState{})
}

// fastChunksState is fastChunks keeping st across the chunks.
func fastChunksState(chunks []string, aligned, cut bool, st *pageState) (ms []memento.Memento, next []string, links int, ok bool) {
	if len(chunks) > 1 && !aligned {
		return nil, nil, 0, false
	}
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	done := 0
	for i, c := range chunks {
		last := i == len(chunks)-1
		var nx []string
		var l int
		ms, nx, l, ok = fastPageInto(c, cut && last, ms, done, total-done-len(c), st)
		if !ok {
			return nil, nil, 0, false
		}
		if !last && !endsLink(c) {
			return nil, nil, 0, false // a chunk that does not end a link-value: not as one text
		}
		next = append(next, nx...)
		links += l
		done += len(c)
	}
	return ms, next, links, true
}

// endsLink reports whether b, less its trailing white space, ends with
// the ',' after a link-value.
func endsLink(b string) bool {
	b = strings.TrimRight(b, " \t\r\n")
	return strings.HasSuffix(b, ",")
}

// fastPageInto is fastPage appending to ms, b being the text between
// before bytes already parsed and after bytes still to parse (chunks of
// one body).
func fastPageInto(b string, cut bool, ms []memento.Memento, before, after int, st *pageState) (_ []memento.Memento, next []string, links int, ok bool) {
	// short is the answer when b ends inside a link-value: with cut, the
	// links before it; otherwise the input is no plain page.
	short := func() ([]memento.Memento, []string, int, bool) {
		if cut {
			return ms, next, links, true
		}
		return nil, nil, 0, false
	}
	for i := skipOWS(b, 0); i < len(b); i = skipOWS(b, i) {
		if b[i] != '<' {
			return nil, nil, 0, false
		}
		j := strings.IndexByte(b[i+1:], '>')
		if j < 0 {
			if cut && plainTargetPrefix(b[i+1:]) {
				return ms, next, links, true
			}
			return nil, nil, 0, false
		}
		tFrom, tTo := i+1, i+1+j
		target := b[tFrom:tTo]
		class, plain := plainTarget(target)
		if !plain {
			return nil, nil, 0, false
		}
		i += j + 2
		var rel, dt string
		haveRel, haveDT := false, false
		if strings.HasPrefix(b[i:], waybackParams) && len(b)-i > len(waybackParams)+httpDateLen {
			// The parameters most archives write, read as the loop below
			// would read them: the rel and the datetime of a memento.
			v := i + len(waybackParams)
			if b[v+httpDateLen] == '"' && unquotedDate(b[v:v+httpDateLen]) {
				rel, haveRel = b[i+len(`; rel="`):i+len(`; rel="memento`)], true
				dt, haveDT = b[v:v+httpDateLen], true
				i = v + httpDateLen + 1
			}
		}
		for {
			i = skipOWS(b, i)
			if i >= len(b) {
				if cut {
					return short()
				}
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
			for n < len(b) && httptoken.IsTchar(b[n]) {
				n++
			}
			if n >= len(b) {
				return short()
			}
			if n == i || b[n] != '=' {
				return nil, nil, 0, false
			}
			name := b[i:n]
			i = n + 1
			var val string
			if i < len(b) && b[i] == '"' {
				// One pass to the closing quote, refusing a backslash (a
				// quoted-pair) on the way: the values are short, shorter
				// than what two IndexByte calls cost.
				e := i + 1
				for e < len(b) && b[e] != '"' && b[e] != '\\' {
					e++
				}
				if e == len(b) {
					return short()
				}
				if b[e] == '\\' {
					return nil, nil, 0, false
				}
				val = b[i+1 : e]
				i = e + 1
			} else {
				v := i
				for i < len(b) && httptoken.IsTchar(b[i]) {
					i++
				}
				if i == v {
					if i == len(b) {
						return short()
					}
					return nil, nil, 0, false
				}
				val = b[v:i]
			}
			switch {
			case !haveRel && foldEq(name, "rel"):
				rel, haveRel = val, true
			case !haveDT && foldEq(name, "datetime"):
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
			case foldEq(tok, "memento"):
				isMemento = true
			case foldEq(tok, "original"):
				isOriginal = true
			case foldEq(tok, "timemap"):
				isTimeMap = true
			case foldEq(tok, "timegate"):
				isTimeGate = true
			case foldEq(tok, "self"):
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
				t = st.days.parse(dt)
			}
			if !cleanAsIs(target, class) || t.Before(EarliestDatetime) || t.After(cache.MaxTime) {
				st.unclean++
			}
			if len(ms) == cap(ms) {
				ms = growMementos(ms, before+tFrom, b[i:], after)
			}
			ms = append(ms, memento.Memento{URIM: b[tFrom:tTo], Datetime: t})
		case isTimeMap && !isSelf:
			next = append(next, b[tFrom:tTo])
		}
	}
	return ms, next, links, true
}

// waybackParams is how most archives' memento links go on after the
// target, up to the datetime's value (of httpDateLen bytes in the HTTP
// form, "Tue, 20 Jun 2000 18:02:59 GMT").
const (
	waybackParams = `; rel="memento"; datetime="`
	httpDateLen   = 29
)

// unquotedDate: v holds no byte that ends or escapes a quoted value.
func unquotedDate(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] == '"' || v[i] == '\\' {
			return false
		}
	}
	return true
}

// minMementoLink is the length of a short memento link with its
// datetime, `<http://x/>;rel=memento;datetime="Tue, 20 Jun 2000 18:02:59
// GMT"`, less a few bytes: what mementoEstimate reckons a link needs.
const minMementoLink = 56

// mementoEstimate is the most memento links text can hold: one per '<',
// and no more than one per minMementoLink bytes.
func mementoEstimate(text string) int {
	return min(strings.Count(text, "<"), len(text)/minMementoLink)
}

// firstMementos is the capacity of the first memento slice of a page:
// enough for the mementos of about 450 KB of a real TimeMap.
const firstMementos = 4096

// growMementos returns ms with room for more mementos, its contents
// copied: parsed bytes of the text are read, rest is the text left of
// the string being parsed and after the bytes after it. The first slice
// holds at most firstMementos; a full one grows to what the rate of
// mementos read so far gives the whole text (a sixteenth more), at least
// double, and never past what is left can hold (mementoEstimate, after
// counted as minMementoLink bytes a link). A real TimeMap is so
// allocated about twice, near its size; a body that stops being a plain
// page (a run of '<', garbage after a few links) allocates for the
// mementos it had, not for its length. The slices come from, and the
// outgrown one goes back to, the lists searches released
// (reusedMementos, releaseMementos).
func growMementos(ms []memento.Memento, parsed int, rest string, after int) []memento.Memento {
	n := len(ms)
	bound := n + 1 + mementoEstimate(rest) + after/minMementoLink
	want := min(bound, firstMementos)
	if n > 0 {
		whole := parsed + len(rest) + after
		rate := int(int64(n) * int64(whole) / int64(max(parsed, 1)))
		want = min(bound, max(2*n, rate+rate/16))
	}
	grown := reusedMementos(max(want, n+1))[:n]
	copy(grown, ms)
	if ms != nil {
		releaseMementos(ms) // its mementos are in grown now
	}
	return grown
}

func skipOWS(b string, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// plainTarget: an absolute http or https URL (lower-case scheme) of
// printable ASCII without '<' or '"', which the general reader keeps byte
// for byte; class is the union of its bytes' urimByte classes.
func plainTarget(t string) (class byte, plain bool) {
	if !strings.HasPrefix(t, "http://") && !strings.HasPrefix(t, "https://") {
		return 0, false
	}
	// Eight bytes a round into four classes: the table's loads do not
	// wait on one another's OR.
	var c0, c1, c2, c3 byte
	i := 0
	for ; i+8 <= len(t); i += 8 {
		s := t[i : i+8]
		c0 |= linkByte[s[0]] | linkByte[s[4]]
		c1 |= linkByte[s[1]] | linkByte[s[5]]
		c2 |= linkByte[s[2]] | linkByte[s[6]]
		c3 |= linkByte[s[3]] | linkByte[s[7]]
	}
	for ; i < len(t); i++ {
		c0 |= linkByte[t[i]]
	}
	class = c0 | c1 | c2 | c3
	return class &^ notPlain, class&notPlain == 0
}

// notPlain is the class linkByte gives a byte plainBytes refuses.
const notPlain = 1 << 7

// linkByte is urimByte's class of each byte, with notPlain for those
// plainBytes refuses.
var linkByte = func() (t [256]byte) {
	for c := range 256 {
		t[c] = urimByte[c]
		if c <= ' ' || c >= 0x7f || c == '<' || c == '"' {
			t[c] |= notPlain
		}
	}
	return t
}()

// cleanAsIs reports whether cleanURIM keeps plain target t (of urimByte
// class) as it is: with no byte to escape, when it has a host.
func cleanAsIs(t string, class byte) bool {
	if class != 0 {
		u, ok := cleanURIM(t)
		return ok && u == t
	}
	rest := t[len("http://"):]
	if t[4] == 's' {
		rest = t[len("https://"):]
	}
	return rest != "" && rest[0] != '/' && rest[0] != '?' && rest[0] != '#'
}

// plainTargetPrefix: t could be the start of a plainTarget (a target cut
// by the end of a body read in part).
func plainTargetPrefix(t string) bool {
	for _, p := range []string{"http://", "https://"} {
		n := min(len(t), len(p))
		if t[:n] == p[:n] {
			return plainBytes(t)
		}
	}
	return false
}

// plainBytes: t is printable ASCII without '<' or '"'.
func plainBytes(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c <= ' ' || c >= 0x7f || c == '<' || c == '"' {
			return false
		}
	}
	return true
}

// dayCache keeps the day of the last datetime read in the strict HTTP
// form ("Tue, 20 Jun 2000 18:02:59 GMT"): a TimeMap's mementos come in
// time order, several a day, and a datetime of the same day needs only
// its time of day read.
type dayCache struct {
	date string // "20 Jun 2000" of the last strict datetime, "" for none
	unix int64  // its midnight, in Unix seconds
}

// parse is memento.ParseHTTPDateLenient(dt) in UTC at whole seconds, the
// zero time when it refuses dt.
func (c *dayCache) parse(dt string) time.Time {
	strict := len(dt) == 29 && dt[3] == ',' && dt[4] == ' ' && dt[16] == ' ' && dt[19] == ':' && dt[22] == ':' && dt[25:] == " GMT"
	var secs int64
	if strict {
		hh, mm, ss := twoDigits(dt[17:19]), twoDigits(dt[20:22]), twoDigits(dt[23:25])
		if hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59 {
			strict = false
		}
		secs = int64(hh*3600 + mm*60 + ss)
		if strict && c.date != "" && dt[5:16] == c.date && weekday(dt[:3]) {
			return time.Unix(c.unix+secs, 0).UTC()
		}
	}
	lt, err := memento.ParseHTTPDateLenient(dt)
	if err != nil {
		return time.Time{}
	}
	t := lt.UTC()
	if t.Nanosecond() != 0 { // an HTTP date has whole seconds: no division for them
		t = t.Truncate(time.Second)
	}
	// The day is kept when dt is strict and read as its own digits say
	// (year 1 is left out: its first second is the zero time, refused).
	if u := t.Unix(); strict && dt[12:16] != "0001" && weekday(dt[:3]) && (u%86400+86400)%86400 == secs {
		c.date, c.unix = dt[5:16], u-secs
	}
	return t
}

// twoDigits is the value of two ASCII digits, or -1.
func twoDigits(s string) int {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return -1
	}
	return int(s[0]-'0')*10 + int(s[1]-'0')
}

// weekday reports whether s is an English day name as the strict HTTP
// date writes it.
func weekday(s string) bool {
	switch s {
	case "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat":
		return true
	}
	return false
}

// foldEq is strings.EqualFold(s, lower) for a lower-case lower, the
// spelling archives write compared first.
func foldEq(s, lower string) bool { return s == lower || strings.EqualFold(s, lower) }
