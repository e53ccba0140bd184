package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// compatGroups holds the named groups of a match of one of the original's
// expressions (the empty string for a group the expression lacks or that
// took no part in the match) and where the match ends.
type compatGroups struct {
	key    string // surt, or host for the 9-column CDX
	year   string // 4 ASCII digits
	month  string // 2 ASCII digits
	scheme string // "http", "https" or ""
	mime   string
	status string
	length string
	end    int // byte offset of the end of the match (the CDXJ data starts there)
}

// groupIndexes are the submatch numbers of an expression's named groups
// (-1 when it has none of that name).
type groupIndexes struct{ key, year, month, scheme, mime, status, length int }

func indexesOf(re interface{ SubexpIndex(string) int }, keyName string) groupIndexes {
	return groupIndexes{re.SubexpIndex(keyName), re.SubexpIndex("year"), re.SubexpIndex("month"),
		re.SubexpIndex("scheme"), re.SubexpIndex("mime"), re.SubexpIndex("status"), re.SubexpIndex("length")}
}

var (
	gxCDX7           = indexesOf(reCDX7, "surt")
	gxCDXJ           = indexesOf(reCDXJ, "surt")
	gxCDXNbams       = indexesOf(reCDXNbams, "host")
	gxCDXNbamskrMSVg = indexesOf(reCDXNbamskrMSVg, "surt")
)

// matchRegexp matches line with the original's expression for format f
// (Go's RE2, leftmost-first like Python's re). It is the reference for
// matchFast and handles the lines matchFast leaves to it.
func matchRegexp(f compatFormat, line string) (compatGroups, bool) {
	re, gx := reCDXNbamskrMSVg, gxCDXNbamskrMSVg
	switch f {
	case fmtCDX7:
		re, gx = reCDX7, gxCDX7
	case fmtCDXJ:
		re, gx = reCDXJ, gxCDXJ
	case fmtCDXNbams:
		re, gx = reCDXNbams, gxCDXNbams
	}
	m := re.FindStringSubmatchIndex(line)
	if m == nil {
		return compatGroups{}, false
	}
	group := func(i int) string {
		if i < 0 || m[2*i] < 0 {
			return ""
		}
		return line[m[2*i]:m[2*i+1]]
	}
	return compatGroups{key: group(gx.key), year: group(gx.year), month: group(gx.month), scheme: group(gx.scheme),
		mime: group(gx.mime), status: group(gx.status), length: group(gx.length), end: m[1]}, true
}

// matchFast follows, without a regular expression, the path a backtracking
// matcher tries first through the original's expression for format f: every
// quantifier as long as it goes, every alternation by its first branch. When
// that path reaches the end of the expression it is the match Python's re
// (and RE2's leftmost-first submatches) return, and sure is true. When it
// fails, a shorter repetition might still match: sure is false and the
// caller asks matchRegexp. On index lines as archives write them the first
// path always matches.
func matchFast(f compatFormat, s string) (g compatGroups, sure bool) {
	var i int
	var ok bool
	if f == fmtCDXNbams {
		// (?P<host>[^ /:]+)\S*\s+
		i = 0
		for i < len(s) && s[i] != ' ' && s[i] != '/' && s[i] != ':' {
			i++
		}
		if i == 0 {
			return g, false
		}
		g.key = s[:i]
		i = skipNonSpace(s, i)
		if i, ok = spaces(s, i); !ok {
			return g, false
		}
	} else {
		// (?P<surt>([^ ):,]+)(,[^ ):,]+)*)(?:[):]\S*\s+|\s+)
		for {
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != ')' && s[j] != ':' && s[j] != ',' {
				j++
			}
			if j == i {
				return g, false // an empty first label, or "," not followed by a label
			}
			if j < len(s) && s[j] == ',' {
				i = j + 1
				continue
			}
			i = j
			break
		}
		g.key = s[:i]
		if i == len(s) {
			return g, false
		}
		if s[i] == ')' || s[i] == ':' {
			i = skipNonSpace(s, i+1)
		}
		if i, ok = spaces(s, i); !ok {
			return g, false
		}
	}
	// (?P<year>[0-9]{4})(?P<month>[0-9]{2})\d+\s+
	if len(s)-i < 7 {
		return g, false
	}
	for k := i; k < i+6; k++ {
		if s[k] < '0' || s[k] > '9' {
			return g, false
		}
	}
	g.year, g.month = s[i:i+4], s[i+4:i+6]
	j := skipDigits(s, i+6)
	if j == i+6 {
		return g, false
	}
	if i, ok = spaces(s, j); !ok {
		return g, false
	}
	if f == fmtCDXJ {
		g.end = i
		return g, true
	}
	// (?:(?P<scheme>https?)://)?\S+\s+(?P<mime>\S+)\s+(?P<status>\S+)
	u := i
	if strings.HasPrefix(s[i:], "https://") {
		g.scheme, u = "https", i+8
	} else if strings.HasPrefix(s[i:], "http://") {
		g.scheme, u = "http", i+7
	}
	if i, ok = field(s, u); !ok {
		return g, false
	}
	if i, ok = spaces(s, i); !ok {
		return g, false
	}
	m := i
	if i, ok = field(s, i); !ok {
		return g, false
	}
	g.mime = s[m:i]
	if i, ok = spaces(s, i); !ok {
		return g, false
	}
	st := i
	if i, ok = field(s, i); !ok {
		return g, false
	}
	g.status = s[st:i]
	if f == fmtCDXNbams {
		g.end = i
		return g, true
	}
	// CDX7: \s+\S+\s+(?P<length>\S+); N b a m s k r M S V g: three fields
	// before the length.
	skip := 1
	if f == fmtCDXNbamskrMSVg {
		skip = 3
	}
	for ; skip > 0; skip-- {
		if i, ok = spaces(s, i); !ok {
			return g, false
		}
		if i, ok = field(s, i); !ok {
			return g, false
		}
	}
	if i, ok = spaces(s, i); !ok {
		return g, false
	}
	l := i
	if i, ok = field(s, i); !ok {
		return g, false
	}
	g.length = s[l:i]
	g.end = i
	return g, true
}

// asciiSpace marks the ASCII characters Python's str.isspace accepts.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true}

// spaceAt reports whether a Python whitespace character (\s) starts at s[i],
// and its length in bytes.
func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiSpace[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return pyIsSpace(r), n
}

// skipNonSpace returns the end of the run of \S characters at s[i] (\S*).
func skipNonSpace(s string, i int) int {
	for i < len(s) {
		sp, n := spaceAt(s, i)
		if sp {
			break
		}
		i += n
	}
	return i
}

// spaces matches \s+ at s[i]: the end of the run, false when it is empty.
func spaces(s string, i int) (int, bool) {
	j := i
	for j < len(s) {
		sp, n := spaceAt(s, j)
		if !sp {
			break
		}
		j += n
	}
	return j, j > i
}

// field matches \S+ at s[i].
func field(s string, i int) (int, bool) {
	j := skipNonSpace(s, i)
	return j, j > i
}

// skipDigits returns the end of the run of \d characters (Unicode Nd) at s[i].
func skipDigits(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c < '0' || c > '9' {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.Is(unicode.Nd, r) {
			break
		}
		i += n
	}
	return i
}

// jsonFields holds the four members parse_line reads from a CDXJ block
// when each of them that is present is a JSON string.
type jsonFields struct {
	status, mime, length, url             string
	hasStatus, hasMime, hasLength, hasURL bool
}

// scanFlatJSON reads s, in one pass, when it is a valid JSON object whose
// member names and string values hold no escapes and whose values are
// strings, numbers, true, false or null, and the four members parse_line
// reads are strings where present (a later duplicate wins, as in Python).
// It returns false, leaving the decision to the general decoder, for
// anything else, valid or not.
func scanFlatJSON(s string, f *jsonFields) bool {
	*f = jsonFields{}
	var other uint8 // members of interest whose last value is not a string
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return skipJSONSpace(s, i+1) == len(s)
	}
	for {
		kb, ke, ok := jsonString(s, i)
		if !ok {
			return false
		}
		i = skipJSONSpace(s, ke+1)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		i = skipJSONSpace(s, i+1)
		if i >= len(s) {
			return false
		}
		var str string
		isStr := false
		switch c := s[i]; {
		case c == '"':
			vb, ve, ok := jsonString(s, i)
			if !ok {
				return false
			}
			str, isStr, i = s[vb:ve], true, ve+1
		case c == 't' && strings.HasPrefix(s[i:], "true"):
			i += 4
		case c == 'f' && strings.HasPrefix(s[i:], "false"):
			i += 5
		case c == 'n' && strings.HasPrefix(s[i:], "null"):
			i += 4
		case c == '-' || (c >= '0' && c <= '9'):
			if i, ok = jsonNumber(s, i); !ok {
				return false
			}
		default:
			return false // an object, an array or not JSON
		}
		var bit uint8
		switch s[kb:ke] {
		case "status":
			f.status, f.hasStatus, bit = str, true, 1
		case "mime":
			f.mime, f.hasMime, bit = str, true, 2
		case "length":
			f.length, f.hasLength, bit = str, true, 4
		case "url":
			f.url, f.hasURL, bit = str, true, 8
		}
		if isStr {
			other &^= bit
		} else {
			other |= bit
		}
		i = skipJSONSpace(s, i)
		if i >= len(s) {
			return false
		}
		if s[i] == '}' {
			return other == 0 && skipJSONSpace(s, i+1) == len(s)
		}
		if s[i] != ',' {
			return false
		}
		i = skipJSONSpace(s, i+1)
	}
}

// jsonString matches a JSON string without escapes at s[i]: the bounds of
// its content (the closing quote is at end).
func jsonString(s string, i int) (begin, end int, ok bool) {
	if i >= len(s) || s[i] != '"' {
		return 0, 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return i + 1, j, true
		case c == '\\' || c < 0x20:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// jsonNumber matches a JSON number (RFC 8259 section 6) at s[i].
func jsonNumber(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = asciiDigits(s, i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := asciiDigits(s, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := asciiDigits(s, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func asciiDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// skipJSONSpace skips JSON whitespace (space, tab, LF, CR).
func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}
