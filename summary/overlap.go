package summary

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// OverlapOptions configures Overlap.
type OverlapOptions struct {
	// NoYear compares keys over all periods together instead of period by
	// period (the original overlap.py's -noyear).
	NoYear bool
}

// OverlapCell is what one combination of summaries holds in one period:
// the number of keys held by exactly these summaries, and for each member,
// in the order of the combination, the captures (n_total) and bytes
// (s_total) it holds under those keys.
type OverlapCell struct {
	Keys int64   // keys held by exactly this combination of summaries
	N, S []int64 // per member: captures (n_total) and bytes (s_total) under those keys
}

// OverlapResult maps a combination of summaries ("a", "a AND b": names in
// input order joined by " AND ") to its cells by period ("2018", or "all"
// with NoYear).
type OverlapResult struct {
	Names  []string
	Combos map[string]map[string]*OverlapCell
}

// AllPeriods is the period name of OverlapResult cells built with NoYear.
const AllPeriods = "all"

// Overlap compares summaries: for every key and period, the set of
// summaries holding at least one capture there (n_total > 0) is found, and
// the key is counted for that combination, with each member's n_total and
// s_total. This is the measure of the original overlap.py (which reads
// host_year_total.py files; Overlap reads the summaries directly).
//
// Names must be distinct and must not hold " AND ". Memory: keys ×
// periods × summaries counters (16 bytes each). A malformed
// line, or a line whose counts overflow the sums (ErrOverflow), gives a
// *ParseError naming it.
func Overlap(names []string, inputs []io.Reader, opts *OverlapOptions) (*OverlapResult, error) {
	if len(names) != len(inputs) {
		return nil, fmt.Errorf("summary: Overlap: %d names for %d inputs", len(names), len(inputs))
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) || strings.Contains(n, " AND ") {
			return nil, fmt.Errorf("summary: Overlap: summary name %q is given twice or holds \" AND \" (names must tell the summaries apart)", n)
		}
	}
	var o OverlapOptions
	if opts != nil {
		o = *opts
	}
	type ns struct{ n, s int64 }
	held := make(map[string]map[string][]ns) // key → period → per input
	for i, r := range inputs {
		sr := NewSummaryReader(r, names[i])
		for {
			l, err := sr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			for _, p := range l.Periods {
				if p.Counters[NTotal] <= 0 {
					continue
				}
				per := AllPeriods
				if !o.NoYear {
					per = p.Period.String()
				}
				m := held[l.Key]
				if m == nil {
					m = make(map[string][]ns)
					held[l.Key] = m
				}
				v := m[per]
				if v == nil {
					v = make([]ns, len(inputs))
					m[per] = v
				}
				n, okN := addCount(v[i].n, p.Counters[NTotal])
				sz, okS := addCount(v[i].s, p.Counters[STotal])
				if !okN || !okS {
					return nil, &ParseError{Name: names[i], Line: sr.line, Err: fmt.Errorf("key %q period %s: %w", l.Key, per, ErrOverflow)}
				}
				v[i].n, v[i].s = n, sz
			}
		}
	}
	res := &OverlapResult{Names: slices.Clone(names), Combos: make(map[string]map[string]*OverlapCell)}
	var members []string
	for _, m := range held {
		for per, v := range m {
			members = members[:0]
			var cellN, cellS []int64
			for i, x := range v {
				if x.n > 0 {
					members = append(members, names[i])
					cellN = append(cellN, x.n)
					cellS = append(cellS, x.s)
				}
			}
			combo := strings.Join(members, " AND ")
			cm := res.Combos[combo]
			if cm == nil {
				cm = make(map[string]*OverlapCell)
				res.Combos[combo] = cm
			}
			c := cm[per]
			if c == nil {
				c = &OverlapCell{N: make([]int64, len(cellN)), S: make([]int64, len(cellS))}
				cm[per] = c
			}
			c.Keys++
			for j := range cellN {
				n, okN := addCount(c.N[j], cellN[j])
				sz, okS := addCount(c.S[j], cellS[j])
				if !okN || !okS {
					return nil, fmt.Errorf("summary: Overlap: combination %q period %s: %w", combo, per, ErrOverflow)
				}
				c.N[j], c.S[j] = n, sz
			}
		}
	}
	return res, nil
}

// WriteJSON writes the result as WriteTable does in FormatJSON: an array
// of objects {"period", "combination", "keys", "NAME:n_total",
// "NAME:s_total", ...} naming every number. Its only errors are w's.
func (r *OverlapResult) WriteJSON(w io.Writer) error { return r.WriteTable(w, FormatJSON) }

// WriteCSV writes the result as the three CSV tables of the original's
// -csv output (the README's example): "Hosts:" (keys per combination),
// "Count of URLs:" and "Size of compressed records:" (one column per member
// of each combination, "x from (x AND y)"), one row per period, all fields quoted.
// The tables are built in memory and written at once: the only error is
// w's.
func (r *OverlapResult) WriteCSV(w io.Writer) error {
	combos := make([]string, 0, len(r.Combos))
	periodSet := map[string]bool{}
	for c, m := range r.Combos {
		combos = append(combos, c)
		for p := range m {
			periodSet[p] = true
		}
	}
	slices.Sort(combos)
	periods := make([]string, 0, len(periodSet))
	for p := range periodSet {
		periods = append(periods, p)
	}
	slices.Sort(periods)
	quoted := func(fields []string) string {
		esc := make([]string, len(fields))
		for i, f := range fields {
			esc[i] = strings.ReplaceAll(f, `"`, `""`) // RFC 4180 section 2.7
		}
		return `"` + strings.Join(esc, `","`) + `"` + "\n"
	}
	var b strings.Builder
	b.WriteString("Hosts:\n")
	b.WriteString(quoted(append([]string{"Year"}, combos...)))
	for _, p := range periods {
		row := []string{p}
		for _, c := range combos {
			v := int64(0)
			if cell := r.Combos[c][p]; cell != nil {
				v = cell.Keys
			}
			row = append(row, fmt.Sprint(v))
		}
		b.WriteString(quoted(row))
	}
	for _, table := range []struct {
		title string
		pick  func(*OverlapCell, int) int64
	}{
		{"Count of URLs:", func(c *OverlapCell, i int) int64 { return c.N[i] }},
		{"Size of compressed records:", func(c *OverlapCell, i int) int64 { return c.S[i] }},
	} {
		b.WriteString(table.title + "\n")
		head := []string{"Year"}
		for _, c := range combos {
			members := strings.Split(c, " AND ")
			for _, m := range members {
				if len(members) == 1 {
					head = append(head, m)
				} else {
					head = append(head, m+" from ("+c+")")
				}
			}
		}
		b.WriteString(quoted(head))
		for _, p := range periods {
			row := []string{p}
			for _, c := range combos {
				members := strings.Split(c, " AND ")
				cell := r.Combos[c][p]
				for i := range members {
					v := int64(0)
					if cell != nil {
						v = table.pick(cell, i)
					}
					row = append(row, fmt.Sprint(v))
				}
			}
			b.WriteString(quoted(row))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
