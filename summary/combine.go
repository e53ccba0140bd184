package summary

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Rekey says how Combine changes the keys of its input lines.
type Rekey uint8

// Re-keying modes (the original combine-summary's --aggregatehosts).
const (
	RekeyNone    Rekey = iota // keep keys as they are
	RekeyDomain               // registrable domain by the public suffix list (publicsuffixlist)
	RekeyLastTwo              // the original's lvl2: last two labels, its slicing quirk included
)

// CombineOptions configures a Combiner.
type CombineOptions struct {
	// Yearly folds monthly periods (202001) into their year (2020), as the
	// original's --yearly does; yearly periods stay as they are.
	Yearly bool
	// Rekey changes every key before summing (see Rekey).
	Rekey Rekey
	// Compact leaves zero counters out of the written lines.
	Compact bool
}

// Combiner sums summaries: lines with the same key (after re-keying) are
// added period by period, counter by counter. It is combine-summary.py.
//
// Memory: one entry per distinct output key. Not safe for concurrent use.
type Combiner struct {
	opts    CombineOptions
	entries map[string]*entry
	skipped int64    // index lines the inputs' !meta notes say were skipped
	notes   []string // their examples
}

// NewCombiner returns an empty Combiner (nil options mean defaults).
func NewCombiner(opts *CombineOptions) *Combiner {
	c := &Combiner{entries: make(map[string]*entry)}
	if opts != nil {
		c.opts = *opts
	}
	return c
}

// RekeyKey returns the key that mode m gives to a summary key. Keys that
// name no host (pseudo-URI keys such as "dns:", NoHostKey) and IP hosts are
// kept; with RekeyDomain the empty key the original writes for records
// without a host becomes NoHostKey, and hosts are lower-cased and
// internationalized ones put in ASCII form, as Summarizer keys them.
func RekeyKey(key string, m Rekey) string {
	switch m {
	case RekeyDomain:
		if strings.HasSuffix(key, ":") || key == NoHostKey {
			return key
		}
		return keyOfHost(strings.ToLower(key), KeyDomain) // "" (the original's key for "-") becomes NoHostKey
	case RekeyLastTwo:
		return pyLvl2FromHost(key)
	}
	return key
}

// AddLine adds one summary line. A sum that would overflow int64 gives an
// error wrapping ErrOverflow; the line is then not added (periods already
// summed from it stay).
func (c *Combiner) AddLine(l *Line) error {
	key := RekeyKey(l.Key, c.opts.Rekey)
	e := c.entries[key]
	if e == nil {
		e = &entry{key: key}
		c.entries[key] = e
	}
	for _, p := range l.Periods {
		per := p.Period
		if c.opts.Yearly {
			per = Period(p.Period.Year())
		}
		if err := e.counters(per).MergeChecked(&p.Counters); err != nil {
			return fmt.Errorf("key %q period %s: %w", key, per, err)
		}
	}
	return nil
}

// AddSummary reads a whole summary from r and adds its lines. name is used
// in errors; on a malformed line, or one whose counters would overflow the
// sums (ErrOverflow), it returns a *ParseError naming the line, having added
// the lines before it.
func (c *Combiner) AddSummary(r io.Reader, name string) error {
	sr := NewSummaryReader(r, name)
	defer func() { c.addNotes(sr.Header()) }()
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := c.AddLine(l); err != nil {
			return &ParseError{Name: name, Line: sr.line, Err: err}
		}
	}
}

// addNotes sums the skipped lines the "!meta" notes of an input record
// (see Summarizer.WriteTo), so that the combined summary records them too.
func (c *Combiner) addNotes(header []string) {
	for _, h := range header {
		js, ok := strings.CutPrefix(h, "!meta ")
		if !ok {
			continue
		}
		var m struct {
			Skipped  int64    `json:"skipped_lines"`
			Examples []string `json:"skipped_examples"`
		}
		if json.Unmarshal([]byte(js), &m) != nil || m.Skipped <= 0 {
			continue
		}
		c.skipped += m.Skipped
		for _, e := range m.Examples {
			if len(c.notes) < 5 {
				c.notes = append(c.notes, e)
			}
		}
	}
}

// WriteTo writes the combined summary: keys in byte-wise order, periods
// ascending. When an input's note line recorded skipped index lines, the
// combined summary starts with a note line that sums them (see
// Summarizer.WriteTo). It implements io.WriterTo.
func (c *Combiner) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	var b []byte
	if c.skipped > 0 {
		s := Summarizer{stats: Stats{BadLines: c.skipped, BadExamples: c.notes}}
		m, err := bw.Write(s.appendNote(nil))
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	for _, k := range sortedKeys(c.entries) {
		b = appendLine(b[:0], c.entries[k], c.opts.Compact, true)
		m, err := bw.Write(b)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// Lines returns the combined lines, keys in byte-wise order and periods ascending.
func (c *Combiner) Lines() []Line {
	s := &Summarizer{entries: c.entries}
	return s.Lines()
}
