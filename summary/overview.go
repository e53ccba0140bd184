package summary

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Overview is what one summary holds, folded for charts and reports: its
// counters summed per year and overall, the keys with captures per year,
// registrable domains by the first character of their second-level label,
// and keys per top-level domain and year. Monthly periods count for their
// year.
//
// Memory: 208 bytes per year, plus 8 bytes per top-level domain and year;
// it does not grow with the number of keys. Not safe for concurrent use.
type Overview struct {
	Name  string // the summary's name, as given to NewOverview
	Lines int64  // summary lines added
	// Keys counts the keys with at least one capture (n_total > 0).
	Keys  int64
	Total Counters // all periods of all keys
	years map[int]*yearOverview
	// FirstChar counts the keys with captures that are domain names by the
	// first character of their registrable domain (the public suffix list's
	// eTLD+1, "bbc" of bbc.co.uk): "a" to "z", "0-9", "IDN" for a Punycode
	// label ("xn--"), "other" for anything else.
	FirstChar map[string]int64
	// NotDomains counts the keys with captures that are not domain names: IP
	// addresses, pseudo-URI keys ("dns:"), NoHostKey and the empty key.
	NotDomains int64
	tlds       map[string]map[int]int64
	tldKeys    map[string]int64
}

type yearOverview struct {
	c    Counters
	keys int64 // keys with n_total > 0 in the year
}

// YearOverview is one year of an Overview.
type YearOverview struct {
	Year     int
	Counters Counters // summed over the keys
	Keys     int64    // keys with at least one capture in the year
}

// NewOverview returns an empty overview of the summary called name.
func NewOverview(name string) *Overview {
	return &Overview{Name: name, years: map[int]*yearOverview{}, FirstChar: map[string]int64{}, tlds: map[string]map[int]int64{}, tldKeys: map[string]int64{}}
}

// ReadOverview reads a whole summary into a new Overview called name (see
// AddSummary). An error is AddSummary's (a *ParseError naming the line),
// returned with the Overview of the lines before it.
func ReadOverview(r io.Reader, name string) (*Overview, error) {
	o := NewOverview(name)
	return o, o.AddSummary(r, name)
}

// AddSummary adds every line of the summary r (called name in errors) to
// o, so that one Overview can hold the sum of several summaries. A
// malformed line, or sums that overflow int64, give a *ParseError naming
// the line; the lines before it have been added.
func (o *Overview) AddSummary(r io.Reader, name string) error {
	sr := NewSummaryReader(r, name)
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := o.Add(l); err != nil {
			return &ParseError{Name: name, Line: sr.line, Err: err}
		}
	}
}

// Add adds one summary line. A sum that would overflow int64 is ErrOverflow,
// and leaves o as it was.
func (o *Overview) Add(l *Line) error {
	perYear := map[int]*Counters{}
	var total Counters
	for i := range l.Periods {
		p := &l.Periods[i]
		y := p.Period.Year()
		c := perYear[y]
		if c == nil {
			c = &Counters{}
			perYear[y] = c
		}
		if err := c.MergeChecked(&p.Counters); err != nil {
			return fmt.Errorf("key %q: %w", l.Key, err)
		}
		if err := total.MergeChecked(&p.Counters); err != nil {
			return fmt.Errorf("key %q: %w", l.Key, err)
		}
	}
	check := o.Total
	if err := check.MergeChecked(&total); err != nil {
		return fmt.Errorf("key %q: %w", l.Key, err)
	}
	for y, c := range perYear {
		if yo := o.years[y]; yo != nil {
			chk := yo.c
			if err := chk.MergeChecked(c); err != nil {
				return fmt.Errorf("key %q year %d: %w", l.Key, y, err)
			}
		}
	}
	o.Lines++
	o.Total = check
	tld, domain := domainOfKey(l.Key)
	for y, c := range perYear {
		yo := o.years[y]
		if yo == nil {
			yo = &yearOverview{}
			o.years[y] = yo
		}
		yo.c.Merge(c)
		if c[NTotal] > 0 {
			yo.keys++
			if tld != "" {
				m := o.tlds[tld]
				if m == nil {
					m = map[int]int64{}
					o.tlds[tld] = m
				}
				m[y]++
			}
		}
	}
	if total[NTotal] <= 0 {
		return nil
	}
	o.Keys++
	if tld != "" {
		o.tldKeys[tld]++
	}
	if domain == "" {
		o.NotDomains++
		return nil
	}
	o.FirstChar[firstCharClass(domain)]++
	return nil
}

// domainOfKey returns the top-level domain (last label) and the registrable
// domain of a summary key, or "", "" for a key that is no domain name.
func domainOfKey(key string) (tld, domain string) {
	key = strings.ToLower(strings.TrimSuffix(key, "."))
	if key == "" || key == NoHostKey || strings.ContainsAny(key, ":[]/ ") || isIP(key) || !strings.Contains(key, ".") {
		return "", ""
	}
	tld = key[strings.LastIndexByte(key, '.')+1:]
	if tld == "" || isAllDigits(tld) {
		return "", "" // "10.0.0" or a truncated IP
	}
	domain, err := publicsuffix.EffectiveTLDPlusOne(key)
	if err != nil {
		domain = key // a public suffix itself ("co.uk", as KeyLastTwo writes)
	}
	return tld, domain
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// FirstCharClasses lists the FirstChar classes in reading order: a to z,
// 0-9, IDN, other.
var FirstCharClasses = func() []string {
	var c []string
	for r := 'a'; r <= 'z'; r++ {
		c = append(c, string(r))
	}
	return append(c, "0-9", "IDN", "other")
}()

func firstCharClass(domain string) string {
	switch c := domain[0]; {
	case strings.HasPrefix(domain, "xn--"):
		return "IDN"
	case 'a' <= c && c <= 'z':
		return string(c)
	case '0' <= c && c <= '9':
		return "0-9"
	}
	return "other"
}

// Years returns the years that hold any counter, ascending.
func (o *Overview) Years() []YearOverview {
	out := make([]YearOverview, 0, len(o.years))
	for y, yo := range o.years {
		out = append(out, YearOverview{Year: y, Counters: yo.c, Keys: yo.keys})
	}
	slices.SortFunc(out, func(a, b YearOverview) int { return a.Year - b.Year })
	return out
}

// TLDs returns the top-level domains of the keys with captures, most keys
// first (ties in byte-wise order), with their keys in all and per year.
func (o *Overview) TLDs() []TLDOverview {
	out := make([]TLDOverview, 0, len(o.tldKeys))
	for t, n := range o.tldKeys {
		tv := TLDOverview{TLD: t, Keys: n, PerYear: map[int]int64{}}
		for y, k := range o.tlds[t] {
			tv.PerYear[y] = k
		}
		out = append(out, tv)
	}
	slices.SortFunc(out, func(a, b TLDOverview) int {
		if a.Keys != b.Keys {
			if a.Keys > b.Keys {
				return -1
			}
			return 1
		}
		return strings.Compare(a.TLD, b.TLD)
	})
	return out
}

// TLDOverview is one top-level domain of an Overview.
type TLDOverview struct {
	TLD     string        // "lu", "com", "xn--p1ai"
	Keys    int64         // keys under the TLD with captures in any year
	PerYear map[int]int64 // year → keys under the TLD with captures that year
}

// TLDKeys returns, for one top-level domain (case-insensitive, without a
// leading dot), the keys with captures under it per year.
func (o *Overview) TLDKeys(tld string) map[int]int64 {
	out := map[int]int64{}
	for y, n := range o.tlds[strings.ToLower(strings.TrimPrefix(tld, "."))] {
		out[y] = n
	}
	return out
}
