package aggregator

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
)

// OpenMementoMap opens the MementoMap file at path (memory-mapped, see
// mementomap.Open) as a MapLookup: a URI-R is canonicalized to its SURT
// (surt.Canonicalize, the Internet Archive's profile), then looked up most
// specific key first, wildcards included (internal/spec/MEMENTOMAP.md, Lookup). The
// frequency is 1 when the map says the archive may hold the URI-R, 0 when
// it says absent (no matching key, or a matched frequency that holds
// nothing). A URI-R that cannot be canonicalized gives an error, so the
// archive is asked. When routing, the URI-R is canonicalized once for all
// the archives' maps. The io.Closer unmaps the file. The file is read
// once before it is mapped: one that is not a valid UKVS document or has no
// data line is refused with ErrNotAMap (the archive is then always asked).
//
// The file must not be changed in place while it is open: write a new map
// to a temporary file and rename it over the old one (the open map keeps
// reading the old file). A file truncated or rewritten in place is caught
// when a lookup touches a page that no longer exists (the map turns the
// fault, SIGBUS, into an error: mementomap.ErrChanged): that lookup and
// every later one return an error wrapping ErrMapDamaged, so that the
// archive is asked. The lookup also has a Changed method, which tells a
// change in place before any lookup faults; Aggregator.CheckMaps uses it
// to drop and reload the map.
//
// An observed map (its !fields names a second key column "observed": the
// answers an archive gave, with when; see WriteObservedMap) is looked up by
// the staleness rule of mementomap.Map.LookupObserved at the time of the
// lookup: a negative is trusted for the map's negatives_max_age, then the
// archive is asked again; a URI-R never observed is asked for.
func OpenMementoMap(path string) (MapLookup, io.Closer, error) {
	return OpenMementoMapAt(path, time.Now)
}

// OpenMementoMapAt is OpenMementoMap with the clock that an observed map's
// lookups read (now is called once per lookup); other maps ignore it. It
// returns os.Stat's or os.Open's error for a file it cannot open, an
// error naming path and wrapping mementomap.ErrNotRegular for a path that
// is not a regular file (a directory, a FIFO, a device: refused before it
// is opened, so a FIFO is never waited on), an error wrapping
// ErrNotAMap and naming path for a file that mementomap.CheckMap refuses
// (wrapping its *ukvs.ParseError too; a map with no data line, cut short
// or with bad lines), and otherwise
// mementomap.Open's error, naming the file (such as one wrapping
// mementomap.ErrNotMap or mementomap.ErrLoneCR).
func OpenMementoMapAt(path string, now func() time.Time) (MapLookup, io.Closer, error) {
	if err := checkMapFile(path); err != nil {
		return nil, nil, err
	}
	m, err := mementomap.Open(path)
	if err != nil {
		return nil, nil, err
	}
	l := &mementoMapLookup{m: m, now: now, observed: m.TimeKey() == mementomap.TimeKeyObserved}
	return l, m, nil
}

// ErrNotAMap is returned (wrapped) by OpenMementoMap for a file that is not
// a usable MementoMap: one that mementomap.CheckMap refuses (not a valid
// UKVS document, no data line, a last line cut short). Such a map would say "absent" for every URI-R, so that the
// archive would never be asked: an HTML "page not found" served with 200 at
// /.well-known/mementomap, or an empty body, is the usual case.
var ErrNotAMap = errors.New("not a MementoMap")

// checkMapFile reads the whole file once (memory: two lines) and rejects
// what ErrNotAMap describes, and a path that is not a regular file
// (openRegular).
func checkMapFile(path string) error {
	f, err := openRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := mementomap.CheckMap("", bufio.NewReaderSize(f, 64<<10)); err != nil {
		return fmt.Errorf("%s: %w: %w", path, ErrNotAMap, err)
	}
	return nil
}

// openRegular opens the MementoMap file at path for reading, refusing a
// path that is not a regular file (a directory, a FIFO, a device, a
// socket) with an error naming it and wrapping mementomap.ErrNotRegular,
// as mementomap.Open does. It stats the path before opening it and opens
// it without blocking (O_NONBLOCK), so that a FIFO, which would wait for a
// writer, is never waited on, even one put at path between the two; the
// opened file is then checked again. Other errors are os.Stat's or
// os.Open's *fs.PathError.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegularMap(path, fi)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, notRegularMap(path, fi)
	}
	return f, nil
}

// notRegularMap is openRegular's error for a path that is not a regular
// file: its type as fs.FileMode writes it ("d" a directory, "p" a FIFO,
// "D" a device, "Dc" a character device, "S" a socket).
func notRegularMap(path string, fi os.FileInfo) error {
	return fmt.Errorf("%s: %w (mode %s): a MementoMap is read from a file", path, mementomap.ErrNotRegular, fi.Mode().Type())
}

// ErrMapDamaged is returned (wrapped) by lookups in a MementoMap file that
// was truncated while memory-mapped.
var ErrMapDamaged = errors.New("mementomap file changed in place while open (truncated?)")

type mementoMapLookup struct {
	m        *mementomap.Map
	damaged  atomic.Bool
	observed bool             // an observed map: LookupObserved at now()
	now      func() time.Time // nil means time.Now
}

// Changed reports a change of the map file in place since it was opened
// (mementomap.Map.Changed) or a lookup that found it truncated, as an
// error wrapping ErrMapDamaged; nil when the file is as it was.
func (l *mementoMapLookup) Changed() error {
	if l.damaged.Load() {
		return ErrMapDamaged
	}
	if err := l.m.Changed(); err != nil {
		l.damaged.Store(true)
		return fmt.Errorf("%w: %w", ErrMapDamaged, err)
	}
	return nil
}

// Frequency implements MapLookup.
func (l *mementoMapLookup) Frequency(urir string) (int64, error) {
	key, err := surt.Canonicalize(urir)
	if err != nil {
		return 0, fmt.Errorf("mementomap lookup of %q: %w", urir, err)
	}
	return l.frequencySURT(key)
}

func (l *mementoMapLookup) frequencySURT(key string) (int64, error) {
	if l.damaged.Load() {
		return 0, fmt.Errorf("mementomap lookup of %q: %w", key, ErrMapDamaged)
	}
	// A memory fault on the mapped file (it shrank under us) is recovered
	// by the map into an error wrapping mementomap.ErrChanged.
	var match mementomap.Match
	var err error
	if l.observed {
		now := time.Now
		if l.now != nil {
			now = l.now
		}
		match, err = l.m.LookupObserved(key, now(), 0)
	} else {
		match, err = l.m.LookupSURT(key)
	}
	if errors.Is(err, mementomap.ErrChanged) {
		l.damaged.Store(true)
		return 0, fmt.Errorf("mementomap lookup of %q: %w: %w", key, ErrMapDamaged, err)
	}
	if err != nil {
		return 0, err
	}
	if match.Present() {
		return 1, nil
	}
	return 0, nil
}
