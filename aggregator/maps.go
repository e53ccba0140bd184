package aggregator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/surt"
)

// MapLookup is what routing needs from an archive's MementoMap
// (internal/spec/MEMENTOMAP.md): the frequency of the most specific key that matches a
// URI-R. 0 means absent (no matching key, or a matched frequency of 0); an
// error means the map could not answer, and the archive is then asked.
type MapLookup interface {
	Frequency(urir string) (int64, error)
}

// MapLookupFunc adapts a function to MapLookup.
type MapLookupFunc func(urir string) (int64, error)

// Frequency calls f and returns its answer and error unchanged.
func (f MapLookupFunc) Frequency(urir string) (int64, error) { return f(urir) }

// loadedMap is one generation of an archive's map. Lookups hold the read
// lock; replacing the map closes the old one under the write lock, so an
// mmapped file is never unmapped under a running lookup.
type loadedMap struct {
	lookup MapLookup
	closer io.Closer
	loaded time.Time
	path   string      // the file it was opened from, "" for SetMap's maps
	file   os.FileInfo // that file when it was opened, nil when unknown
	poke   chan<- struct{}

	mu     sync.RWMutex
	closed bool
}

// changed returns the lookup's report of a change of its file in place
// (mementoMapLookup.Changed), or nil.
func (lm *loadedMap) changed() error {
	lm.mu.RLock()
	defer lm.mu.RUnlock()
	if lm.closed {
		return nil
	}
	if c, ok := lm.lookup.(interface{ Changed() error }); ok {
		return c.Changed()
	}
	return nil
}

func (lm *loadedMap) close() error {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if lm.closed {
		return nil
	}
	lm.closed = true
	if lm.closer != nil {
		return lm.closer.Close()
	}
	return nil
}

// surtLookup is implemented by maps keyed by SURT (OpenMementoMap's): a
// route canonicalizes the URI-R once and looks the key up in every map.
type surtLookup interface {
	frequencySURT(key string) (int64, error)
}

// query is one URI-R being routed, with its SURT computed at most once.
type query struct {
	urir   string
	key    string
	keyErr error
	done   bool
}

func (q *query) surt() (string, error) {
	if !q.done {
		q.key, q.keyErr = surt.Canonicalize(q.urir)
		q.done = true
	}
	return q.key, q.keyErr
}

// frequency returns the map's answer and whether it may be trusted.
func (lm *loadedMap) frequency(q *query) (int64, bool) {
	lm.mu.RLock()
	defer lm.mu.RUnlock()
	if lm.closed {
		return 0, false
	}
	var (
		f   int64
		err error
	)
	if sl, ok := lm.lookup.(surtLookup); ok {
		var key string
		if key, err = q.surt(); err == nil {
			f, err = sl.frequencySURT(key)
		}
	} else {
		f, err = lm.lookup.Frequency(q.urir)
	}
	if err != nil {
		if errors.Is(err, ErrMapDamaged) && lm.poke != nil {
			select { // ask the map watch to drop and reload it now
			case lm.poke <- struct{}{}:
			default:
			}
		}
		return 0, false
	}
	return f, true
}

// mayHold is the routing rule: false only when a loaded, fresh, readable
// map says the archive holds nothing for the URI-R.
func (ag *Aggregator) mayHold(st *archiveState, q *query, now time.Time) bool {
	lm := st.profile.Load()
	if lm == nil || now.Sub(lm.loaded) > ag.opts.MapMaxAge {
		return true
	}
	f, ok := lm.frequency(q)
	return !ok || f > 0
}

// SetMap installs m as the MementoMap of archive id, loaded (or built) at
// loaded; closer, if not nil, is closed when the map is replaced or the
// aggregator closes. The swap is atomic: a search sees the old map or the
// new one. A nil m removes the map (the archive is then always asked).
func (ag *Aggregator) SetMap(id string, m MapLookup, closer io.Closer, loaded time.Time) error {
	st, ok := ag.byID[id]
	if !ok {
		return fmt.Errorf("aggregator: SetMap: unknown archive %q", id)
	}
	var lm *loadedMap
	if m != nil {
		lm = &loadedMap{lookup: m, closer: closer, loaded: loaded, poke: ag.mapPoke}
	}
	return ag.setMap(st, lm)
}

func (ag *Aggregator) setMap(st *archiveState, lm *loadedMap) error {
	if old := st.profile.Swap(lm); old != nil {
		return old.close()
	}
	return nil
}

// ErrNoMap is returned (wrapped) when an archive's map source yields no map:
// no /.well-known/mementomap and no rel="mementomap" link.
var ErrNoMap = errors.New("no MementoMap found")

// LoadMaps loads the MementoMap of every archive whose Archive.Map is set,
// once, and returns the errors joined (an archive whose map fails to load
// simply keeps being asked). Maps from a URL or discovered are fetched
// with the aggregator's HTTP client, written to a temporary file in MapDir
// and renamed into place before being opened.
func (ag *Aggregator) LoadMaps(ctx context.Context) error {
	var errs []error
	for _, st := range ag.archives {
		if !st.Map.Configured() {
			continue
		}
		if err := ag.loadMap(ctx, st); err != nil {
			ag.log.Warn("mementomap not loaded", "archive", st.ID, "err", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// StartMapRefresh re-fetches, every Archive.Map.Refresh, the maps that come
// from a URL or discovery, and runs CheckMaps every Options.MapCheckEvery
// (and at once when a lookup finds a map damaged), until ctx ends or the
// aggregator closes.
func (ag *Aggregator) StartMapRefresh(ctx context.Context) {
	if ag.opts.MapCheckEvery > 0 {
		ag.every(ctx, ag.opts.MapCheckEvery, ag.mapPoke, func() {
			_ = ag.CheckMaps(ctx) // each problem is logged
		})
	}
	for _, st := range ag.archives {
		if st.Map.Refresh <= 0 || st.Map.File != "" || !st.Map.Configured() {
			continue
		}
		started := ag.every(ctx, st.Map.Refresh, nil, func() {
			if err := ag.loadMap(ctx, st); err != nil {
				ag.log.Warn("mementomap refresh failed", "archive", st.ID, "err", err)
			}
		})
		if !started {
			return
		}
	}
}

// every calls fn in a background goroutine of the aggregator every d, and
// at once on each receive from poke (nil: never), until ctx ends or the
// aggregator closes. It starts nothing and returns false once the
// aggregator is closed.
func (ag *Aggregator) every(ctx context.Context, d time.Duration, poke <-chan struct{}, fn func()) bool {
	if !ag.track() {
		return false
	}
	go func() {
		defer ag.bg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ag.base.Done():
				return
			case <-t.C:
			case <-poke:
			}
			fn()
		}
	}()
	return true
}

func (ag *Aggregator) loadMap(ctx context.Context, st *archiveState) error {
	path := st.Map.File
	if path == "" {
		src := st.Map.URL
		var err error
		if src == "" {
			src, err = ag.discoverMap(ctx, st)
			if err != nil {
				return err
			}
		}
		path, err = ag.fetchMap(ctx, st, src)
		if err != nil {
			return err
		}
	}
	fi, _ := os.Stat(path) // before the open: a change after it is then seen
	m, closer, err := ag.opts.OpenMap(path)
	if err != nil {
		return fmt.Errorf("aggregator: archive %s: opening map %s: %w", st.ID, path, err)
	}
	return ag.setMap(st, &loadedMap{lookup: m, closer: closer, loaded: time.Now(), path: path, file: fi, poke: ag.mapPoke})
}

// mapWatch is what CheckMaps keeps per archive.
type mapWatch struct {
	mapChanged, mapReloads atomic.Int64
	mapDropped             atomic.Bool

	// Guarded by Aggregator.checkMu.
	seen      os.FileInfo // a dropped map's file at the last check, to reload it once stable
	lastFetch time.Time   // the last fetch of a dropped URL map
}

// CheckMaps checks every loaded MementoMap once, with one stat of its
// file, and returns the problems joined (each is also logged):
//
//   - A map changed in place (its file truncated or written into while
//     open, which mementomap.Map.Changed tells, or a lookup that faulted
//     on the truncated mapping, ErrMapDamaged) is dropped at once, so that
//     its archive is always asked; this is logged at Warn and counted
//     (Stats.MapChanged; Stats.MapDropped until it is back). A file source
//     is loaded again once its size and modification time have held still
//     from one check to the next (a file being rewritten is not read
//     half-way); a URL or discovered map is fetched again, at most once a
//     minute.
//   - A file source whose path names another file (a new map renamed
//     over it) is loaded again; the old map serves until the new one is
//     in. A new file that does not load leaves the old map in place.
//
// Loads after the first are counted in Stats.MapReloads. StartMapRefresh
// runs it every Options.MapCheckEvery.
func (ag *Aggregator) CheckMaps(ctx context.Context) error {
	ag.checkMu.Lock()
	defer ag.checkMu.Unlock()
	var errs []error
	for _, st := range ag.archives {
		if !st.Map.Configured() {
			continue
		}
		if err := ag.checkMap(ctx, st); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (ag *Aggregator) checkMap(ctx context.Context, st *archiveState) error {
	if lm := st.profile.Load(); lm != nil {
		if err := lm.changed(); err != nil {
			st.mapChanged.Add(1)
			st.mapDropped.Store(true)
			ag.log.Warn("mementomap changed in place: dropped, the archive is asked until the map is loaded again",
				"archive", st.ID, "path", lm.path, "err", err)
			if st.profile.CompareAndSwap(lm, nil) {
				lm.close()
			}
			st.seen = nil
			if st.Map.File != "" {
				if fi, err := os.Stat(st.Map.File); err == nil {
					st.seen = fi
				}
				return fmt.Errorf("aggregator: archive %s: %w", st.ID, err)
			}
			return errors.Join(fmt.Errorf("aggregator: archive %s: %w", st.ID, err), ag.refetch(ctx, st))
		}
		if st.Map.File == "" || lm.file == nil {
			return nil
		}
		fi, err := os.Stat(st.Map.File)
		if err != nil || os.SameFile(fi, lm.file) {
			return nil
		}
		ag.log.Info("mementomap file replaced; loading the new one", "archive", st.ID, "path", st.Map.File)
		return ag.reload(ctx, st)
	}
	if !st.mapDropped.Load() {
		return nil
	}
	if st.Map.File == "" {
		return ag.refetch(ctx, st)
	}
	fi, err := os.Stat(st.Map.File)
	if err != nil {
		st.seen = nil
		return nil
	}
	if prev := st.seen; prev != nil && os.SameFile(prev, fi) && prev.Size() == fi.Size() && prev.ModTime().Equal(fi.ModTime()) {
		return ag.reload(ctx, st)
	}
	st.seen = fi // not yet still: wait for the next check
	return nil
}

// refetch fetches a dropped URL or discovered map again, at most once a
// minute.
func (ag *Aggregator) refetch(ctx context.Context, st *archiveState) error {
	if time.Since(st.lastFetch) < time.Minute {
		return nil
	}
	st.lastFetch = time.Now()
	return ag.reload(ctx, st)
}

// reload loads the archive's map again and counts it.
func (ag *Aggregator) reload(ctx context.Context, st *archiveState) error {
	if err := ag.loadMap(ctx, st); err != nil {
		ag.log.Warn("mementomap not loaded again", "archive", st.ID, "err", err)
		return err
	}
	st.mapReloads.Add(1)
	st.mapDropped.Store(false)
	st.seen = nil
	ag.log.Info("mementomap loaded again", "archive", st.ID)
	return nil
}

// discoverMap looks for the archive's map at /.well-known/mementomap on the
// TimeMap (else TimeGate) host, then for a rel="mementomap" Link on a HEAD
// of the TimeMap prefix.
func (ag *Aggregator) discoverMap(ctx context.Context, st *archiveState) (string, error) {
	prefix := st.TimeMap
	if prefix == "" {
		prefix = st.TimeGate
	}
	u, err := url.Parse(prefix)
	if err != nil {
		return "", err
	}
	wk := u.Scheme + "://" + u.Host + "/.well-known/mementomap"
	rctx, cancel := context.WithTimeout(ctx, st.Timeout)
	defer cancel()
	if req, err := http.NewRequestWithContext(rctx, http.MethodHead, wk, nil); err == nil {
		if resp, err := ag.fetch.Do(req); err == nil {
			drainClose(resp.Body)
			if resp.StatusCode == http.StatusOK {
				return wk, nil
			}
		}
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodHead, prefix, nil)
	if err != nil {
		return "", err
	}
	resp, err := ag.fetch.Do(req)
	if err != nil {
		return "", ag.mapErr(st, fmt.Errorf("aggregator: archive %s: discovering map: %w", st.ID, err))
	}
	drainClose(resp.Body)
	for _, v := range resp.Header.Values("Link") {
		links, _ := memento.ParseLinkFormat(v, &memento.ParseOptions{Base: prefix})
		for _, l := range links {
			if l.HasRel("mementomap") {
				if u, err := url.Parse(l.Target); err != nil || !ag.allow.Allows(u) {
					return "", ag.mapErr(st, fmt.Errorf("aggregator: archive %s: rel=\"mementomap\" %s: %w", st.ID, l.Target, ErrHostNotAllowed))
				}
				return l.Target, nil
			}
		}
	}
	return "", fmt.Errorf("aggregator: archive %s: %w", st.ID, ErrNoMap)
}

// mapErr counts a map request the AllowList refused on the archive
// (Stats.Refused) and returns err.
func (ag *Aggregator) mapErr(st *archiveState, err error) error {
	if errors.Is(err, ErrHostNotAllowed) {
		st.refused.Add(1)
	}
	return err
}

// fetchMap downloads src into MapDir/<id>.mementomap through a temporary
// file in the same folder (internal/atomicfile), renamed into place on
// success. MapDir is made (with its parents) then, when an archive
// answers with a map, not before.
func (ag *Aggregator) fetchMap(ctx context.Context, st *archiveState, src string) (string, error) {
	dir := ag.opts.MapDir
	if dir == "" {
		dir = os.TempDir()
	}
	rctx, cancel := context.WithTimeout(ctx, max(st.Timeout, time.Minute))
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, src, nil)
	if err != nil {
		return "", err
	}
	resp, err := ag.fetch.Do(req)
	if err != nil {
		return "", ag.mapErr(st, fmt.Errorf("aggregator: archive %s: fetching map: %w", st.ID, err))
	}
	defer drainClose(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("aggregator: archive %s: fetching map %s: HTTP %d: %w", st.ID, src, resp.StatusCode, ErrNoMap)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // made when a map is written to it, not before
		return "", fmt.Errorf("aggregator: archive %s: %w", st.ID, err)
	}
	final := filepath.Join(dir, url.PathEscape(st.ID)+".mementomap")
	tmp, err := atomicfile.Create(final, nil)
	if err != nil {
		return "", fmt.Errorf("aggregator: archive %s: %w", st.ID, err)
	}
	defer tmp.Close() // after Commit it does nothing
	limit := ag.opts.MaxMapBytes
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: more than %d bytes", errTooLarge, limit)
	}
	if err != nil {
		return "", fmt.Errorf("aggregator: archive %s: fetching map %s: %w", st.ID, src, err)
	}
	if err := tmp.Commit(); err != nil {
		return "", fmt.Errorf("aggregator: archive %s: %w", st.ID, err)
	}
	return final, nil
}
