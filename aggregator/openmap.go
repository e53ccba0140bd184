package aggregator

import (
	"fmt"
	"io"

	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
)

// OpenMementoMap opens the MementoMap file at path (memory-mapped, see
// mementomap.Open) as a MapLookup: a URI-R is canonicalized to its SURT
// (surt.Canonicalize, the Internet Archive's profile), then looked up most
// specific key first, wildcards included (MEMENTOMAP.md, Lookup). The
// frequency is 1 when the map says the archive may hold the URI-R, 0 when
// it says absent (no matching key, or a matched frequency that holds
// nothing). A URI-R that cannot be canonicalized gives an error, so the
// archive is asked. When routing, the URI-R is canonicalized once for all
// the archives' maps. The io.Closer unmaps the file.
func OpenMementoMap(path string) (MapLookup, io.Closer, error) {
	m, err := mementomap.Open(path)
	if err != nil {
		return nil, nil, err
	}
	l := &mementoMapLookup{m: m}
	return l, m, nil
}

type mementoMapLookup struct{ m *mementomap.Map }

// Frequency implements MapLookup.
func (l *mementoMapLookup) Frequency(urir string) (int64, error) {
	key, err := surt.Canonicalize(urir)
	if err != nil {
		return 0, fmt.Errorf("mementomap lookup of %q: %w", urir, err)
	}
	return l.frequencySURT(key)
}

func (l *mementoMapLookup) frequencySURT(key string) (int64, error) {
	match, err := l.m.LookupSURT(key)
	if err != nil {
		return 0, err
	}
	if match.Present() {
		return 1, nil
	}
	return 0, nil
}
