package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/mementomap"
)

const observedUsage = `usage: aggregator observed -cache STORE -archive-id ID[,ID...] -o DIR [-archives FILE] [-max-age D]

Writes the observed map of each archive (aggregator.WriteObservedMap: what
the aggregator's cache says the archive answered, with when; negatives
expire after -max-age) to DIR/ID.ukvs, for an archive that publishes no
MementoMap: serve it with -mementomap ID=DIR/ID.ukvs. A map already at
DIR/ID.ukvs is the previous one: its negatives are kept, not renewed, while
they are trusted. STORE is bolt:PATH, an existing cache file opened read-only (while no
aggregator holds it), or a MySQL DSN; a memory cache ends with its process
and cannot be read.

The cache records the mementos each archive answered, not which archives
a search asked: an ID of which no cache entry holds a memento (and with no
map at DIR/ID.ukvs) is refused, as nothing shows it was asked, unless
-archives names the archive list the aggregator searched with and it lists
ID.

`

// runObserved is "aggregator observed": observed maps from a cache.
func runObserved(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("aggregator observed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, observedUsage)
		fs.PrintDefaults()
	}
	store := fs.String("cache", "", "cache `store`: bolt:PATH or a MySQL DSN such as user:pass@tcp(127.0.0.1:3306)/db")
	var ids []string
	fs.Func("archive-id", "archive `id`s, as the archive list names them (comma-separated, repeatable)", func(s string) error {
		for _, id := range strings.Split(s, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		return nil
	})
	out := fs.String("o", "", "output `folder`: one ID.ukvs per archive")
	listFile := fs.String("archives", "", "the archive list `file` the aggregator searched with (JSON or archivelist.xml): an ID it lists may hold nothing in the cache")
	maxAge := fs.Duration("max-age", mementomap.DefaultObservedMaxAge, "how long a negative observation is trusted (the map's negatives_max_age)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.Usagef("observed: unexpected argument %q", fs.Arg(0))
	case *store == "":
		return cli.Usagef("observed: -cache is required (bolt:PATH or a MySQL DSN)")
	case *store == "memory" || *store == "none":
		return cli.Usagef("observed: -cache %s: a memory cache ends with its process; give the bolt file or the MySQL DSN the aggregator uses", *store)
	case *store == "bolt" || *store == "bolt:":
		return cli.Usagef("observed: -cache bolt needs its file: bolt:PATH")
	case len(ids) == 0:
		return cli.Usagef("observed: -archive-id is required")
	case *out == "":
		return cli.Usagef("observed: -o DIR is required")
	case *maxAge <= 0:
		return cli.Usagef("observed: -max-age must be positive")
	}
	for _, id := range ids {
		if strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
			return cli.Usagef("observed: archive id %q cannot name a file in %s", id, *out)
		}
	}
	listed := map[string]bool{}
	if *listFile != "" {
		data, err := os.ReadFile(*listFile)
		if err != nil {
			return fmt.Errorf("observed: %w", err)
		}
		as, err := server.ParseArchiveList(data)
		if err != nil {
			return fmt.Errorf("observed: %s: %w", *listFile, err)
		}
		for _, a := range as {
			listed[a.ID] = true
		}
		for _, id := range ids {
			if !listed[id] {
				return cli.Usagef("observed: archive id %q is not in %s", id, *listFile)
			}
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var (
		c    cache.Cache
		name string
		err  error
	)
	if path, ok := strings.CutPrefix(*store, "bolt:"); ok {
		// Read-only: a missing or empty file is refused, never created.
		c, err = boltcache.Open(path, &boltcache.Options{ReadOnly: true, Logger: log})
		name = *store
	} else {
		c, name, err = server.OpenCache(ctx, *store, "", log)
	}
	if err != nil {
		return fmt.Errorf("observed: opening the cache: %w", err)
	}
	defer c.Close()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, id := range ids {
		path := filepath.Join(*out, id+".ukvs")
		o := aggregator.ObservedOptions{Archive: id, MaxAge: *maxAge, Listed: listed[id]}
		if _, err := os.Stat(path); err == nil {
			o.Previous = path
		}
		f, err := atomicfile.Create(path, nil)
		if err != nil {
			return err
		}
		start := time.Now()
		st, err := aggregator.WriteObservedMap(ctx, f, c, &o)
		if err == nil {
			err = f.Commit()
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("observed: %s: %w", id, err)
		}
		fmt.Fprintf(stdout, "%s\t%s\tentries %d, positives %d, negatives %d, kept %d, skipped %d, bad %d (%s, %.2fs)\n",
			id, path, st.Entries, st.Positives, st.Negatives, st.Kept, st.Skipped, st.Bad, name, time.Since(start).Seconds())
	}
	return nil
}
