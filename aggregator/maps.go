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

// Frequency calls f.
func (f MapLookupFunc) Frequency(urir string) (int64, error) { return f(urir) }

// loadedMap is one generation of an archive's map. Lookups hold the read
// lock; replacing the map closes the old one under the write lock, so an
// mmapped file is never unmapped under a running lookup.
type loadedMap struct {
	lookup MapLookup
	closer io.Closer
	loaded time.Time

	mu     sync.RWMutex
	closed bool
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
		lm = &loadedMap{lookup: m, closer: closer, loaded: loaded}
	}
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
// from a URL or discovery, until ctx ends or the aggregator closes.
func (ag *Aggregator) StartMapRefresh(ctx context.Context) {
	for _, st := range ag.archives {
		if st.Map.Refresh <= 0 || st.Map.File != "" || !st.Map.Configured() {
			continue
		}
		if !ag.track() {
			return
		}
		go func() {
			defer ag.bg.Done()
			t := time.NewTicker(st.Map.Refresh)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-ag.base.Done():
					return
				case <-t.C:
					if err := ag.loadMap(ctx, st); err != nil {
						ag.log.Warn("mementomap refresh failed", "archive", st.ID, "err", err)
					}
				}
			}
		}()
	}
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
	m, closer, err := ag.opts.OpenMap(path)
	if err != nil {
		return fmt.Errorf("aggregator: archive %s: opening map %s: %w", st.ID, path, err)
	}
	return ag.SetMap(st.ID, m, closer, time.Now())
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
// success.
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
