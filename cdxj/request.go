package cdxj

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
)

// Request is one request of the CDX server API as a value: the parameters
// of a "/cdx?url=..." query as pywb documents them (docs/manual/
// cdxserver_api.rst, "CDXJ Server API"), with the Internet Archive's
// wayback CDX server (wayback-cdx-server/README.md) and OutbackCDX
// (README.md, "Querying") where they add to it. ParseRequest reads one
// from URL query values, Values writes it back, and Run answers it over
// any Searcher (a sorted file, a ZipNum cluster, a CDX server).
//
// The zero Request is not valid: it has no URL.
type Request struct {
	// URL is the url= parameter with its wildcard form removed: a URL
	// ("http://example.com/a", "example.com/a") or, for a domain match, a
	// host ("example.com"). ParseRequest turns "*.example.com" into URL
	// "example.com" with MatchDomain, and "example.com/a*" into
	// "example.com/a" with MatchPrefix, as the three servers do when
	// matchType= is absent.
	URL string
	// Match is matchType=: exact (the default), prefix, host or domain.
	Match MatchType
	// From and To are from= and to=: inclusive timestamp bounds of 4 to 17
	// digits, padded to the earliest and the latest instant they name
	// (from=2014&to=2014 is 20140101000000 to 20141231235959; see
	// timestamp.Bounds); "" is no bound.
	From, To string
	// Limit is limit=: at most this many lines; 0 is no limit; a negative
	// value asks for the last -Limit lines (the Internet Archive's form,
	// "limit=-1" for the latest capture).
	Limit int
	// Sort is sort= (and pywb's reverse=true): index order, reverse, or
	// closest to Closest.
	Sort Sort
	// Closest is closest=: the timestamp (4 to 17 digits) SortClosest
	// orders by distance from. Giving closest= without sort= asks for
	// SortClosest, as pywb does.
	Closest string
	// Filters are the filter= parameters, all of which a line must pass.
	Filters []Filter
	// Collapse are the collapse= parameters (the Internet Archive's and
	// OutbackCDX's): of adjacent lines equal in a field, or in its first N
	// characters, only the first is kept.
	Collapse []Collapse
	// Fields is fl= (or pywb's fields=): the fields of each output line, in
	// order; nil means all of them. Names are those of FieldNames.
	Fields []string
	// Output is output=: cdxj (pywb's default), json (one JSON object per
	// line) or text (space-separated fields).
	Output Output
	// Paged is set when page= is given; Page is its value (0-based) and
	// PageSize pageSize= (ZipNum blocks per page; 0 is the server's
	// default). A paged request reads only that page's blocks.
	Paged    bool
	Page     int
	PageSize int
	// ShowNumPages is showNumPages=true: answer with the page count
	// ({"pages": P, "pageSize": S, "blocks": B}) instead of lines.
	ShowNumPages bool
	// ShowPagedIndex is showPagedIndex=true: answer with the secondary
	// index lines of the page's blocks instead of lines.
	ShowPagedIndex bool
}

// Sort is the order of a Request's answer (sort=).
type Sort uint8

// The orders of sort=.
const (
	// SortIndex is the index's own order (no sort= given).
	SortIndex Sort = iota
	// SortReverse is the index order reversed (sort=reverse).
	SortReverse
	// SortClosest orders lines by the distance of their timestamp from
	// Request.Closest, nearest first, an equal distance keeping index order
	// (sort=closest). It is meant for exact matches, whose lines are in
	// time order.
	SortClosest
)

var sortNames = [...]string{"", "reverse", "closest"}

// String returns the sort= value of s ("" for SortIndex).
func (s Sort) String() string {
	if int(s) < len(sortNames) {
		return sortNames[s]
	}
	return fmt.Sprintf("Sort(%d)", s)
}

// Output is the format of a Request's answer (output=).
type Output uint8

// The formats of output=.
const (
	// OutputCDXJ is "key timestamp {json}" per line, the JSON block holding
	// the other fields under pywb's names (pywb's default, text/x-cdxj).
	OutputCDXJ Output = iota
	// OutputJSON is one JSON object per line (NDJSON, text/x-ndjson) with
	// "urlkey", "timestamp" and the other fields, all as strings, as pywb
	// writes them.
	OutputJSON
	// OutputText is the fields separated by single spaces, "-" for an
	// unknown value (text/plain): the original line of a classic CDX
	// record, else the eleven fields of CDX N b a m s k r M S V g.
	OutputText
)

var outputNames = [...]string{"cdxj", "json", "text"}

// String returns the output= value of o.
func (o Output) String() string {
	if int(o) < len(outputNames) {
		return outputNames[o]
	}
	return fmt.Sprintf("Output(%d)", o)
}

// ContentType returns the media type of an answer in o, as pywb sends it:
// text/x-cdxj, text/x-ndjson or text/plain, with charset=utf-8.
func (o Output) ContentType() string {
	switch o {
	case OutputJSON:
		return "text/x-ndjson; charset=utf-8"
	case OutputText:
		return "text/plain; charset=utf-8"
	}
	return "text/x-cdxj; charset=utf-8"
}

// FilterOp is how a Filter compares a field with its value.
type FilterOp uint8

// The comparisons of filter=, as pywb documents them.
const (
	// FilterContains: the field contains the value (no modifier,
	// "filter=mime:html").
	FilterContains FilterOp = iota
	// FilterExact: the field is the value ("=" modifier,
	// "filter==mime:text/html").
	FilterExact
	// FilterRegexp: the regular expression matches at the start of the
	// field ("~" modifier, "filter=~mime:.*/html$"; Python's re.match,
	// here Go's RE2 syntax anchored with "^").
	FilterRegexp
)

// Filter is one filter= parameter: "[!][=|~]field:value" in pywb's syntax.
// The '!' modifier negates it; '=' asks for an exact match and '~' for a
// regular expression, the default being a substring test. Without a
// "field:" part the filter tests the whole line; as pywb reads it, what
// comes before a first ':' names a field, so a whole-line filter cannot
// hold one. Field names are those of FieldNames. A Server sends filters
// to the Internet Archive's CDX server and to OutbackCDX in their own
// syntax, with the same meaning.
//
// The Internet Archive's CDX server reads "filter=[!]field:regex" as a
// regular expression that must match the whole field; for the plain values
// its documentation shows ("statuscode:200", "mimetype:text/html") the
// substring test gives the same answer on real indexes, and "~^...$" gives
// its exact semantics.
type Filter struct {
	Negate bool     // '!': keep the lines that do not match
	Op     FilterOp // how Value is compared with the field
	Field  string   // a name of FieldNames (or a JSON member); "" tests the whole line
	Value  string   // the text, or the regular expression, compared
	re     *regexp.Regexp
}

// ParseFilter parses one filter= value. An empty value, a regular
// expression that does not compile, or an unknown field name is an error
// wrapping ErrQuery.
func ParseFilter(s string) (Filter, error) {
	var f Filter
	rest := s
	if strings.HasPrefix(rest, "!") {
		f.Negate, rest = true, rest[1:]
	}
	switch {
	case strings.HasPrefix(rest, "="):
		f.Op, rest = FilterExact, rest[1:]
	case strings.HasPrefix(rest, "~"):
		f.Op, rest = FilterRegexp, rest[1:]
	}
	if name, v, ok := strings.Cut(rest, ":"); ok && isFieldName(name) {
		f.Field, rest = canonicalField(name), v
	} else if ok && name != "" && !strings.ContainsAny(name, "/ ") && f.Op != FilterRegexp {
		return Filter{}, fmt.Errorf("%w: filter %q: unknown field %q (known: %s)", ErrQuery, s, name, strings.Join(FieldNames, ", "))
	}
	f.Value = rest
	if f.Value == "" && f.Op != FilterExact {
		return Filter{}, fmt.Errorf("%w: filter %q has nothing to match", ErrQuery, s)
	}
	if f.Op == FilterRegexp {
		re, err := regexp.Compile("^(?:" + f.Value + ")")
		if err != nil {
			return Filter{}, fmt.Errorf("%w: filter %q: %v", ErrQuery, s, err)
		}
		f.re = re
	}
	return f, nil
}

// String returns f in the syntax ParseFilter reads.
func (f Filter) String() string {
	var b strings.Builder
	if f.Negate {
		b.WriteByte('!')
	}
	switch f.Op {
	case FilterExact:
		b.WriteByte('=')
	case FilterRegexp:
		b.WriteByte('~')
	}
	if f.Field != "" {
		b.WriteString(f.Field)
		b.WriteByte(':')
	}
	b.WriteString(f.Value)
	return b.String()
}

// Match reports whether rec passes f. An unknown value (absent or "-") is
// the empty string, as pywb compares it.
func (f *Filter) Match(rec *Record) bool {
	var v string
	if f.Field == "" {
		v = string(rec.Line())
	} else {
		v, _ = FieldValue(rec, f.Field)
	}
	var ok bool
	switch f.Op {
	case FilterExact:
		ok = v == f.Value
	case FilterRegexp:
		re := f.re
		if re == nil {
			re = regexp.MustCompile("^(?:" + regexp.QuoteMeta(f.Value) + ")")
		}
		ok = re.MatchString(v)
	default:
		ok = strings.Contains(v, f.Value)
	}
	return ok != f.Negate
}

// Collapse is one collapse= parameter, "field" or "field:N": of adjacent
// lines whose field (or its first N bytes, N > 0) is equal, only the first
// is kept (the Internet Archive's CDX server, "Collapsing").
type Collapse struct {
	Field  string
	Prefix int // 0 compares the whole field
}

// ParseCollapse parses one collapse= value. An unknown field or an N that
// is not a positive integer is an error wrapping ErrQuery.
func ParseCollapse(s string) (Collapse, error) {
	name, n, hasN := strings.Cut(s, ":")
	if !isFieldName(name) {
		return Collapse{}, fmt.Errorf("%w: collapse %q: unknown field %q (known: %s)", ErrQuery, s, name, strings.Join(FieldNames, ", "))
	}
	c := Collapse{Field: canonicalField(name)}
	if hasN {
		p, err := strconv.Atoi(n)
		if err != nil || p <= 0 {
			return Collapse{}, fmt.Errorf("%w: collapse %q: %q is not a positive number of characters", ErrQuery, s, n)
		}
		c.Prefix = p
	}
	return c, nil
}

// String returns c in the syntax ParseCollapse reads.
func (c Collapse) String() string {
	if c.Prefix > 0 {
		return c.Field + ":" + strconv.Itoa(c.Prefix)
	}
	return c.Field
}

// key returns the part of rec that c compares.
func (c Collapse) key(rec *Record) string {
	v, _ := FieldValue(rec, c.Field)
	if c.Prefix > 0 && len(v) > c.Prefix {
		v = v[:c.Prefix]
	}
	return v
}

// FieldNames are the field names of the CDX server APIs, in the order of a
// CDX N b a m s k r M S V g line: pywb's JSON names. The aliases of the
// Internet Archive's and OutbackCDX's APIs (original, mimetype,
// statuscode, redirecturl) name the same fields; in a CDXJ record any
// other member of the JSON block can be named too ("languages",
// "mime-detected").
var FieldNames = []string{"urlkey", "timestamp", "url", "mime", "status", "digest", "redirect", "robotflags", "length", "offset", "filename"}

var fieldAliases = map[string]string{
	"original": "url", "mimetype": "mime", "statuscode": "status", "redirecturl": "redirect",
	"originalLength": "orig.length", "originalOffset": "orig.offset", "originalFilename": "orig.filename",
}

func canonicalField(name string) string {
	if a, ok := fieldAliases[name]; ok {
		return a
	}
	return name
}

// isFieldName reports whether name can name a field: a known name or
// alias, or anything a JSON block member could be called (letters, digits,
// '-', '_', '.').
func isFieldName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// wellKnown maps a canonical field name to the Record value it reads.
var wellKnown = map[string]field{
	"url": fURL, "mime": fMIME, "status": fStatus, "digest": fDigest, "redirect": fRedirect,
	"robotflags": fRobots, "length": fLength, "offset": fOffset, "filename": fFilename,
}

// FieldValue returns the field of rec named name (a name of FieldNames, an
// alias, or for a CDXJ record any top-level member of its JSON block, a
// string decoded and any other value as its JSON text). ok is false when
// the value is unknown: absent, "-", or in a malformed JSON block.
func FieldValue(rec *Record, name string) (v string, ok bool) {
	name = canonicalField(name)
	switch name {
	case "urlkey":
		return string(rec.Key()), true
	case "timestamp":
		return string(rec.Timestamp()), true
	case "orig.length", "orig.offset", "orig.filename":
		if l, o, f, ok := rec.Original(); ok {
			switch name {
			case "orig.length":
				return strconv.FormatInt(l, 10), true
			case "orig.offset":
				return strconv.FormatInt(o, 10), true
			}
			return string(f), true
		}
	}
	if f, ok := wellKnown[name]; ok {
		if b := rec.get(f); b != nil {
			return string(b), true
		}
		return "", false
	}
	if !rec.IsCDXJ() {
		return "", false
	}
	s, ok, err := rec.Field(name)
	if err != nil || !ok || s == "-" {
		return "", false
	}
	return s, true
}

// ErrNoPaging is wrapped by the error of a paged request (page=,
// showNumPages, showPagedIndex) over a source without pages: paging reads
// ZipNum blocks, so only a ZipNum cluster (a Pager) answers it, as pywb
// and the Internet Archive's CDX server document.
var ErrNoPaging = errors.New("cdxj: pagination needs a ZipNum cluster")

// ParseRequest reads a Request from the query parameters of a CDX server
// URL (url.ParseQuery of the part after '?'). It knows url, matchType,
// from, to, limit, sort, reverse, closest, filter, collapse, fl, fields,
// output, page, pageSize, showNumPages and showPagedIndex; other
// parameters are ignored. Without matchType, a url ending in '*' asks for
// a prefix match and one starting with "*." for a domain match, the
// wildcard removed; with matchType, url is taken as it is (as pywb and
// OutbackCDX take it; a prefix match then drops one trailing '*' from the
// key, see Query).
//
// Errors wrap ErrQuery and name the parameter: a missing url, an unknown
// matchType, sort or output, a from, to or closest that is not a
// timestamp, a limit, page or pageSize that is not a number (or a
// negative page, a pageSize under 1), sort=closest without closest, a bad
// filter or collapse. A CDX server answers them with 400.
func ParseRequest(v url.Values) (*Request, error) {
	r := &Request{}
	bad := func(param, val, why string) error {
		return fmt.Errorf("%w: %s=%s: %s", ErrQuery, param, val, why)
	}
	r.URL = v.Get("url")
	if r.URL == "" {
		return nil, fmt.Errorf("%w: the url= parameter is required", ErrQuery)
	}
	if mt := v.Get("matchType"); mt != "" {
		m, err := ParseMatchType(mt)
		if err != nil {
			return nil, bad("matchType", mt, "want exact, prefix, host or domain")
		}
		r.Match = m
	} else {
		switch {
		case strings.HasPrefix(r.URL, "*."):
			r.URL, r.Match = r.URL[2:], MatchDomain
		case strings.HasSuffix(r.URL, "*"):
			r.URL, r.Match = strings.TrimSuffix(r.URL, "*"), MatchPrefix
		}
	}
	if r.URL == "" {
		return nil, bad("url", v.Get("url"), "nothing left to look up")
	}
	r.From, r.To = v.Get("from"), v.Get("to")
	if _, _, err := timestamp.Bounds(r.From, r.To); err != nil {
		return nil, fmt.Errorf("%w: from=%s, to=%s: %v", ErrQuery, r.From, r.To, err)
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, bad("limit", s, "not an integer")
		}
		r.Limit = n
	}
	if c := v.Get("closest"); c != "" {
		if _, err := timestamp.Parse(c); err != nil {
			return nil, bad("closest", c, err.Error())
		}
		r.Closest, r.Sort = c, SortClosest
	}
	switch s := v.Get("sort"); s {
	case "", "default":
		if rv := v.Get("reverse"); rv != "" {
			b, err := parseBool(rv)
			if err != nil {
				return nil, bad("reverse", rv, err.Error())
			}
			if b && r.Sort != SortClosest {
				r.Sort = SortReverse
			}
		}
	case "reverse":
		if r.Sort != SortClosest {
			r.Sort = SortReverse
		}
	case "closest":
		if r.Closest == "" {
			return nil, bad("sort", s, "needs closest= with a timestamp")
		}
	default:
		return nil, bad("sort", s, "want reverse or closest")
	}
	for _, s := range v["filter"] {
		f, err := ParseFilter(s)
		if err != nil {
			return nil, err
		}
		r.Filters = append(r.Filters, f)
	}
	for _, s := range v["collapse"] {
		c, err := ParseCollapse(s)
		if err != nil {
			return nil, err
		}
		r.Collapse = append(r.Collapse, c)
	}
	fl := v.Get("fl")
	if fl == "" {
		fl = v.Get("fields")
	}
	if fl != "" {
		for _, name := range strings.Split(fl, ",") {
			name = strings.TrimSpace(name)
			if !isFieldName(name) {
				return nil, bad("fl", fl, fmt.Sprintf("%q is not a field name (known: %s)", name, strings.Join(FieldNames, ", ")))
			}
			r.Fields = append(r.Fields, canonicalField(name))
		}
	}
	switch o := v.Get("output"); o {
	case "", "cdxj":
		r.Output = OutputCDXJ
	case "json":
		r.Output = OutputJSON
	case "text", "cdx":
		r.Output = OutputText
	default:
		return nil, bad("output", o, "want cdxj, json or text")
	}
	if s := v.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, bad("page", s, "not a page number (0, 1, ...)")
		}
		r.Paged, r.Page = true, n
	}
	if s := v.Get("pageSize"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, bad("pageSize", s, "not a positive number of blocks")
		}
		r.PageSize = n
	}
	for _, p := range [...]struct {
		name string
		dst  *bool
	}{{"showNumPages", &r.ShowNumPages}, {"showPagedIndex", &r.ShowPagedIndex}} {
		if s := v.Get(p.name); s != "" {
			b, err := parseBool(s)
			if err != nil {
				return nil, bad(p.name, s, err.Error())
			}
			*p.dst = b
		}
	}
	if _, err := r.Query(); err != nil {
		return nil, err
	}
	return r, nil
}

// parseBool reads the boolean values pywb accepts: true, 1, yes, on and
// false, 0, no, off, any case.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, errors.New("not a boolean (true or false)")
}

// Values returns r as URL query values, the inverse of ParseRequest: the
// parameters a CDX server is asked with. Parameters at their default are
// left out; the match type is given as matchType= (also "exact" when url
// looks like a wildcard form), never as a wildcard in url=.
func (r *Request) Values() url.Values {
	v := url.Values{}
	v.Set("url", r.URL)
	if r.Match != MatchExact || strings.HasSuffix(r.URL, "*") || strings.HasPrefix(r.URL, "*.") {
		v.Set("matchType", r.Match.String())
	}
	if r.From != "" {
		v.Set("from", r.From)
	}
	if r.To != "" {
		v.Set("to", r.To)
	}
	if r.Limit != 0 {
		v.Set("limit", strconv.Itoa(r.Limit))
	}
	switch r.Sort {
	case SortReverse:
		v.Set("sort", "reverse")
	case SortClosest:
		v.Set("sort", "closest")
		v.Set("closest", r.Closest)
	}
	for _, f := range r.Filters {
		v.Add("filter", f.String())
	}
	for _, c := range r.Collapse {
		v.Add("collapse", c.String())
	}
	if len(r.Fields) > 0 {
		v.Set("fl", strings.Join(r.Fields, ","))
	}
	if r.Output != OutputCDXJ {
		v.Set("output", r.Output.String())
	}
	if r.Paged {
		v.Set("page", strconv.Itoa(r.Page))
	}
	if r.PageSize > 0 {
		v.Set("pageSize", strconv.Itoa(r.PageSize))
	}
	if r.ShowNumPages {
		v.Set("showNumPages", "true")
	}
	if r.ShowPagedIndex {
		v.Set("showPagedIndex", "true")
	}
	return v
}

// Query returns the key-range part of r, the Query a Searcher answers: the
// SURT of URL (surt.Canonicalize; a trailing '/' or '?' of a prefix URL is
// kept, as pywb keeps it), Match, From and To. The limit is not part of
// it: Run applies the limit after filters and collapsing. An error wraps
// ErrQuery.
func (r *Request) Query() (Query, error) {
	u := r.URL
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	key, err := surt.Canonicalize(u)
	if err != nil {
		return Query{}, fmt.Errorf("%w: url=%s: %v", ErrQuery, r.URL, err)
	}
	if r.Match == MatchPrefix {
		key = strings.TrimSuffix(key, "*") // the wildcard of an explicit prefix match
		// Canonicalization drops a trailing slash or question mark
		// ("example.com/a/" gives "com,example)/a"); as a prefix they
		// matter: /a/ is not /ab.
		for _, end := range []string{"/", "?"} {
			if strings.HasSuffix(r.URL, end) && !strings.HasSuffix(key, end) {
				key += end
				break
			}
		}
	}
	if r.Sort == SortClosest && r.Closest == "" {
		return Query{}, fmt.Errorf("%w: sort=closest needs closest= with a timestamp", ErrQuery)
	}
	q := Query{Key: key, Match: r.Match, From: r.From, To: r.To}
	if _, err := q.compile(); err != nil {
		return Query{}, err
	}
	return q, nil
}
