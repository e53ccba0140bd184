package mementomap

import "github.com/mementokit/mementokit/ukvs"

// boundClasses indexes the per-bound line counters of a running sum:
// ukvs.Exact, AtLeast, AtMost, About, then unknown.
const unknownClass = 4

// sideSum is the running sum of one side (URI-M or URI-R) of the
// frequencies of a stream of lines: the sum of the known numbers and how
// many lines had each bound, or no count at all.
type sideSum struct {
	n   uint64
	cnt [5]int64
}

func (s *sideSum) add(c ukvs.Count) {
	if !c.Known {
		s.cnt[unknownClass]++
		return
	}
	s.n += c.N
	s.cnt[c.Bound&3]++
}

// count returns the sum of the lines counted in s but not in base, as a
// ukvs.Count: the numbers summed; exact when every term was exact; a bound
// shared by all bounded terms is kept; a lower bound mixed with an upper
// bound, or any approximate term, makes it approximate; an unknown term
// makes an exact or lower-bound sum a lower bound and any other unknown.
// This is [ukvs.Frequency.Add] folded over a set, made independent of the
// order of the terms.
func (s *sideSum) count(base *sideSum) ukvs.Count {
	var d [5]int64
	for i := range d {
		d[i] = s.cnt[i] - base.cnt[i]
	}
	known := d[0] + d[1] + d[2] + d[3]
	if known == 0 {
		return ukvs.Count{}
	}
	b := ukvs.Exact
	switch {
	case d[ukvs.About] > 0 || (d[ukvs.AtLeast] > 0 && d[ukvs.AtMost] > 0):
		b = ukvs.About
	case d[ukvs.AtLeast] > 0:
		b = ukvs.AtLeast
	case d[ukvs.AtMost] > 0:
		b = ukvs.AtMost
	}
	if d[unknownClass] > 0 {
		if b != ukvs.Exact && b != ukvs.AtLeast {
			return ukvs.Count{}
		}
		b = ukvs.AtLeast
	}
	return ukvs.Count{N: s.n - base.n, Known: true, Bound: b}
}

// runSum is the running sum of the frequencies of every data line so far.
// A node keeps the runSum at its opening; its subtree's sum is the
// difference at its closing, so a line costs one addition, not one per
// open node.
type runSum struct{ m, r sideSum }

func (s *runSum) add(f ukvs.Frequency) {
	s.m.add(f.URIM)
	s.r.add(f.URIR)
}

func (s *runSum) since(base *runSum) ukvs.Frequency {
	return ukvs.Frequency{URIM: s.m.count(&base.m), URIR: s.r.count(&base.r)}
}
