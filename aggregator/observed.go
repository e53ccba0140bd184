package aggregator

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
	"github.com/mementokit/mementokit/ukvs"
)

// ObservedOptions sets up [WriteObservedMap].
type ObservedOptions struct {
	// Archive is the archive's id, as its mementos carry it in the cache
	// (cache.StoredMemento.Archive); it also goes into the map's !id header.
	Archive string
	// MaxAge is how long a negative is trusted (the map's !meta
	// "negatives_max_age"); 0 means mementomap.DefaultObservedMaxAge.
	MaxAge time.Duration
	// Previous, when not "", is the observed map this one replaces (the
	// one the aggregator has been routing with; every line is checked,
	// an error names its line; a path that is not a regular file, such
	// as a FIFO, is refused before it is opened): its lines for URI-Rs the
	// cache says nothing new about are kept, and a negative it holds is
	// not renewed by a cache entry made before it expired (see
	// [WriteObservedMap]).
	Previous string
	// Listed says that the caller found Archive in the archive list the
	// cached searches asked: its "0" lines are written even when no entry
	// holds a memento of it. Unset, such an archive is refused
	// ([ErrArchiveNotObserved]).
	Listed bool
	// Now is the time of the !meta updated_at; nil means time.Now.
	Now func() time.Time
}

// ErrArchiveNotObserved is wrapped by the error of [WriteObservedMap] for
// an archive of which no cache entry holds a memento (and that is neither
// Listed nor has a previous map): nothing shows that the cached searches asked it, so its "0"
// lines would claim absences without evidence (a mistyped id, or an
// archive the aggregator does not ask).
var ErrArchiveNotObserved = errors.New("no cache entry holds a memento of it: nothing shows it was asked")

// ObservedStats counts what [WriteObservedMap] wrote.
type ObservedStats struct {
	Entries   int // cache entries read
	Positives int // URI-Rs the archive answered mementos for
	Negatives int // URI-Rs the cache shows the archive answered none for (new)
	Kept      int // lines kept from the previous map (negatives not renewed included)
	Skipped   int // entries that say nothing of the archive: failed, blocked or pending
	Bad       int // entries whose URI-R does not canonicalize to a SURT
}

// WriteObservedMap writes the observed map of one archive (a MementoMap
// whose second key column is "observed": internal/spec/MEMENTOMAP.md,
// "Observed maps") from what the aggregator's cache says it answered, so
// that an archive that publishes no MementoMap can still be routed around
// for URI-Rs it is known not to hold. Every entry of c is read (the cache
// lists them with Stale; memory holds their Infos and the lines written):
//
//   - an entry (found or none) with mementos of the archive gives
//     "SURT OBSERVED M/1": the archive answered M mementos at the entry's
//     update time;
//   - an entry (found or none) without any gives "SURT OBSERVED 0": the
//     aggregator caches only complete searches that asked every archive of
//     its refresh lists (none failed, none was dormant: Result.Complete),
//     so the archive answered that it holds none, or was skipped by its
//     map (which the rule below accounts for);
//   - any other entry says nothing of the archive: a failed search, a
//     blocked or pending URI-R.
//
// The cache does not record which archives a search asked, only the
// mementos they answered, so the archive must be one that the cached
// searches ask for every URI-R (an archive that the rules file leaves out
// for some URI-Rs would be observed as answering none for them), with no
// map but this one. The evidence rule: an archive of which no entry holds
// a memento, not Listed and with no Previous map, is refused
// ([ErrArchiveNotObserved]) rather than written as holding nothing.
//
// The staleness rule (mementomap.Map.LookupObserved): a negative is
// trusted for MaxAge after it was observed, then says nothing, so the
// archive is asked again; a positive never expires (it says "ask"); a
// URI-R never observed is present (the map's "* - /" line). While a
// negative of the Previous map is trusted the aggregator skips the archive
// for that URI-R, so a cache entry made before it expired cannot show that
// the archive was asked: the previous negative is kept with its own time
// (it expires as it would have), never renewed. Only an entry made after it
// expired (the archive was asked again) makes a new one. Routing with the
// map therefore misses only mementos an archive gained less than MaxAge
// before the lookup, for URI-Rs it had answered none for.
//
// The map is written sorted, with !context, !id, !fields and !meta
// (name, type, updated_at, negatives_max_age) headers, to dst; write it to
// a temporary file and rename it (internal/atomicfile) for the aggregator
// to reload. Errors of the cache and of the previous map stop it; opts
// must name the archive (a nil opts or an empty Archive is an error).
func WriteObservedMap(ctx context.Context, dst io.Writer, c cache.Cache, opts *ObservedOptions) (ObservedStats, error) {
	var st ObservedStats
	var o ObservedOptions
	if opts != nil {
		o = *opts
	}
	if o.Archive == "" {
		return st, errors.New("aggregator: observed map: no archive id")
	}
	if o.MaxAge <= 0 {
		o.MaxAge = mementomap.DefaultObservedMaxAge
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	prev := map[string]observedLine{}
	if o.Previous != "" {
		var err error
		if prev, err = readObserved(o.Previous); err != nil {
			return st, err
		}
	}
	infos, err := c.Stale(ctx, cache.MaxTime, 1<<62)
	if err != nil {
		return st, fmt.Errorf("aggregator: observed map: listing the cache: %w", err)
	}
	lines := map[string]observedLine{}
	seen := false               // some entry holds a memento of o.Archive
	others := map[string]bool{} // the archive ids the entries hold
	for _, info := range infos {
		st.Entries++
		if info.Status != cache.StatusFound && info.Status != cache.StatusNone {
			st.Skipped++
			continue
		}
		key, err := surt.Canonicalize("http://" + info.URIR)
		if err != nil {
			st.Bad++
			continue
		}
		n := 0 // the archive's mementos in the entry
		if info.Status == cache.StatusFound {
			e, err := c.Get(ctx, info.Key)
			if errors.Is(err, cache.ErrNotFound) {
				st.Skipped++ // deleted since it was listed
				continue
			}
			if err != nil {
				return st, fmt.Errorf("aggregator: observed map: %w", err)
			}
			info = e.Info
			for _, m := range e.Mementos {
				if m.Archive == o.Archive {
					n++
				} else if len(others) < 100 {
					others[m.Archive] = true
				}
			}
			seen = seen || n > 0
		}
		at := info.Updated.UTC().Truncate(time.Second)
		if old, ok := lines[key]; ok && !at.After(old.at) {
			continue // the http and https forms of one URI-R: the latest counts
		}
		if n > 0 {
			lines[key] = observedLine{at: at, freq: strconv.Itoa(n) + "/1"}
			continue
		}
		// LookupObserved trusts a negative up to its max age inclusive.
		if p, ok := prev[key]; ok && p.freq == "0" && !at.After(p.at.Add(o.MaxAge)) {
			lines[key] = p // not renewed: the archive was skipped, not asked
			continue
		}
		lines[key] = observedLine{at: at, freq: "0"}
	}
	if !seen && !o.Listed && len(prev) == 0 {
		ids := slices.Sorted(maps.Keys(others))
		return st, fmt.Errorf("aggregator: observed map: archive %q: %w (the cache's %d entries hold mementos of %q)",
			o.Archive, ErrArchiveNotObserved, st.Entries, ids)
	}
	for k, p := range prev {
		if _, ok := lines[k]; !ok {
			lines[k] = p
			st.Kept++
		} else if lines[k] == p {
			st.Kept++
		}
	}
	keys := make([]string, 0, len(lines))
	for k, l := range lines {
		keys = append(keys, k)
		if l == prev[k] {
			continue
		}
		if l.freq == "0" {
			st.Negatives++
		} else {
			st.Positives++
		}
	}
	slices.Sort(keys)
	bw := bufio.NewWriterSize(dst, 1<<16)
	id, _ := json.Marshal(map[string]string{"uri": o.Archive})
	meta, _ := json.Marshal(map[string]string{"name": "observed answers of " + o.Archive, "type": "MementoMap",
		"updated_at": now().UTC().Format(time.RFC3339), "negatives_max_age": o.MaxAge.String()})
	fmt.Fprintf(bw, "!context [%q]\n!id %s\n!fields {\"keys\": [\"surt\", %q], \"values\": [\"frequency\"]}\n!meta %s\n* - /\n",
		mementomap.UKVSContext, id, mementomap.TimeKeyObserved, meta)
	for _, k := range keys {
		l := lines[k]
		fmt.Fprintf(bw, "%s %s %s\n", k, timestamp.Format(l.at), l.freq)
	}
	return st, bw.Flush()
}

type observedLine struct {
	at   time.Time
	freq string
}

// readObserved reads the latest line per SURT of an observed map file.
func readObserved(path string) (map[string]observedLine, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("aggregator: previous observed map: %w", err)
	}
	defer f.Close()
	out := map[string]observedLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), mementomap.MaxLineLength+2)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == '!' {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			return nil, fmt.Errorf("aggregator: previous observed map %s: line %d: %d fields, want SURT OBSERVED FREQUENCY", path, n, len(fs))
		}
		if fs[0] == "*" {
			continue
		}
		t, err := timestamp.Parse(fs[1])
		if err != nil {
			return nil, fmt.Errorf("aggregator: previous observed map %s: line %d: %w", path, n, err)
		}
		if _, err := ukvs.ParseFrequency(fs[2]); err != nil {
			return nil, fmt.Errorf("aggregator: previous observed map %s: line %d: %w", path, n, err)
		}
		if old, ok := out[fs[0]]; !ok || t.After(old.at) {
			out[fs[0]] = observedLine{at: t, freq: fs[2]}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("aggregator: previous observed map %s: %w", path, err)
	}
	return out, nil
}
