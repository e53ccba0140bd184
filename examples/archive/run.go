package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/archiveserver"
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

// run parses args, loads the indexes, and serves until ctx ends, then shuts
// the server down gracefully (at most 5 s for requests in flight). The
// server cuts off slow and idle clients (archiveserver.HTTPServer:
// -read-header-timeout, -read-timeout, -write-timeout, -idle-timeout) and
// holds at most -max-conns connections at once (archiveserver.Listen). It
// writes one line "serving ... on http://ADDR" to stdout once listening.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("archive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: archive [flags] INDEX... (CDX or CDXJ files, .gz allowed; ZipNum clusters by their .idx or folder; CDX server URLs with -url-prefix or -domain; - reads stdin)")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:8081", "address to listen on (port 0 picks a free one)")
	id := fs.String("archive-id", "archive", "archive identifier, the \"uri\" of the MementoMap's !id header (a URI, or a short name such as ia)")
	base := fs.String("base", "", "public base URL of the archive for links (default: http:// + the request's Host)")
	latency := fs.Duration("latency", 0, "latency added before every TimeMap and TimeGate answer")
	faultRate := fs.Float64("fault-rate", 0, "share of TimeMap and TimeGate requests answered with -fault-status, in [0, 1]")
	faultStatus := fs.Int("fault-status", 503, "HTTP status of injected faults")
	slowBody := fs.Duration("slow-body", 0, "spread each TimeMap and TimeGate body over this long")
	seed := fs.Uint64("seed", 1, "seed of the fault sequence")
	tmCache := fs.Int("timemap-cache", 0, "keep the rendered bodies of this many TimeMaps (0: render every answer)")
	skipBad := fs.Bool("skip-bad", false, "skip and count unparsable index lines instead of stopping")
	rekey := fs.Bool("rekey", false, "canonicalize every original URL instead of trusting the index keys")
	hcf := fs.Float64("hcf", 1, "MementoMap host compaction factor W_h")
	pcf := fs.Float64("pcf", 1, "MementoMap path compaction factor W_p")
	verbose := fs.Bool("v", false, "log every request (debug level) to stderr")
	cdxMode := fs.String("cdx", "auto", "serve the pywb CDX server API at /cdx and /{id}/cdx: on, off, or auto (on when every index can be searched: ZipNum clusters, sorted files)")
	cdxPageSize := fs.Int("cdx-page-size", cdxj.DefaultPageSize, "CDX API: ZipNum blocks per page when a request gives no pageSize")
	cdxMaxBuffered := fs.Int("cdx-max-buffered", cdxj.DefaultMaxBuffered, "CDX API: most lines held for sort=reverse, sort=closest or a negative limit (more is a 400)")
	cdxMaxHeld := flagvalue.Bytes(archiveserver.DefaultMaxHeldBytes)
	fs.Var(&cdxMaxHeld, "cdx-max-held", "CDX API: memory that all requests together may hold at once for sort=reverse, sort=closest or a negative limit (256MiB, 1GiB, or bytes; at least 1MiB), a held line costing its length plus about 100 bytes; an answer that finds it taken is a 503 with Retry-After, one that needs more by itself a 400")
	d := archiveserver.DefaultTimeouts
	readHeaderTimeout := fs.Duration("read-header-timeout", d.ReadHeader, "longest wait for a request's headers")
	readTimeout := fs.Duration("read-timeout", d.Read, "longest wait for a whole request")
	writeTimeout := fs.Duration("write-timeout", 0, "longest time to answer a request (0: 60s plus -latency and -slow-body)")
	idleTimeout := fs.Duration("idle-timeout", d.Idle, "longest wait for the next request on a keep-alive connection")
	maxConns := fs.Int("max-conns", archiveserver.DefaultMaxConns, "most client connections open at once, and so requests in flight; a client beyond waits until one closes")
	server := cdxflag.AddNamed(fs, "cdx-input-page-size")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("no index file given (run with -h for usage)")
	}
	// Bad flag values are usage errors (exit 2), found before any index is read.
	switch *cdxMode {
	case "auto", "on", "off":
	default:
		return cli.Usagef("-cdx %q: want auto, on or off", *cdxMode)
	}
	switch {
	case *cdxPageSize < 1 || *cdxMaxBuffered < 1:
		return cli.Usagef("-cdx-page-size and -cdx-max-buffered must be positive")
	case cdxMaxHeld < 1<<20:
		return cli.Usagef("-cdx-max-held %d: want a memory size of 1MiB or more (256MiB, 1GiB): it bounds the bytes held, not lines", cdxMaxHeld)
	case !(*faultRate >= 0 && *faultRate <= 1):
		return cli.Usagef("-fault-rate %v: want a share in [0, 1]", *faultRate)
	case *faultStatus < 200 || *faultStatus > 999:
		return cli.Usagef("-fault-status %d: want a final HTTP status, 200 to 999", *faultStatus)
	case *latency < 0 || *slowBody < 0:
		return cli.Usagef("-latency and -slow-body must not be negative")
	case *maxConns < 1:
		return cli.Usagef("-max-conns %d: want 1 or more", *maxConns)
	case *tmCache < 0:
		return cli.Usagef("-timemap-cache %d: want 0 or more", *tmCache)
	case *cdxMode == "on" && slices.Contains(fs.Args(), "-"):
		return cli.Usagef("-cdx on: - is a stream, read once; the CDX API needs a file or a cluster")
	}
	co := mementomap.DefaultCompactOptions()
	co.HostFactor, co.PathFactor = *hcf, *pcf
	if err := co.Check(); err != nil {
		return cli.Usagef("-hcf %v, -pcf %v: %w", *hcf, *pcf, err)
	}
	so, err := server()
	if err == nil {
		err = cdxflag.Check(so, fs.Args())
	}
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if so != nil {
		so.Logger = log
	}

	var inputs []cdxj.Searcher
	for _, name := range fs.Args() {
		ix, err := cdxj.Open(ctx, name, &cdxj.OpenOptions{Stdin: stdin, Server: so})
		if err != nil {
			return err
		}
		defer ix.Close()
		inputs = append(inputs, ix)
	}
	start := time.Now()
	idx, st, err := archiveserver.LoadIndex(ctx, inputs, &archiveserver.LoadOptions{SkipBad: *skipBad, Rekey: *rekey, Logger: log,
		Map: &mementomap.BuildOptions{ArchiveID: *id, Name: *id}})
	if err != nil {
		return err
	}
	srv, err := archiveserver.New(ctx, idx, &archiveserver.Options{
		ID: *id, BaseURL: *base, Latency: *latency, FaultRate: *faultRate, FaultStatus: *faultStatus,
		SlowBody: *slowBody, Seed: *seed, TimeMapCache: *tmCache, Compact: co, Logger: log,
	})
	if err != nil {
		return err
	}
	log.Info("index loaded", "records", st.Records, "mementos", st.Captures, "uri_rs", st.URIRs,
		"non_http", st.NonHTTP, "bad", st.Bad, "duplicates", st.Duplicates,
		"mementomap_records", st.Map.Used, "rekeyed_lines", st.Map.Mismatched,
		"mementomap_bytes", len(srv.MementoMap()), "took", time.Since(start).Round(time.Millisecond))

	var handler http.Handler = srv
	if *cdxMode != "off" {
		src, err := cdxSource(ctx, fs.Args(), inputs)
		switch {
		case err != nil && *cdxMode == "on":
			return fmt.Errorf("-cdx on: %w", err)
		case err != nil:
			log.Warn("CDX API off", "reason", err)
		default:
			cdx := archiveserver.NewCDXHandler(src, &archiveserver.CDXOptions{Collection: *id, SkipBad: *skipBad, Logger: log, MaxHeldBytes: int64(cdxMaxHeld),
				Run: cdxj.RunOptions{PageSize: *cdxPageSize, MaxBuffered: *cdxMaxBuffered}})
			handler = archiveserver.WithCDX(srv, cdx)
			log.Info("CDX API on", "paths", archiveserver.CDXPath+", /"+*id+archiveserver.CDXPath)
		}
	}
	ln, err := archiveserver.Listen(*addr, *maxConns)
	if err != nil {
		return err
	}
	hs := archiveserver.HTTPServer(handler, &archiveserver.Timeouts{ReadHeader: *readHeaderTimeout, Read: *readTimeout, Write: *writeTimeout, Idle: *idleTimeout},
		&archiveserver.Options{Latency: *latency, SlowBody: *slowBody}, log)
	fmt.Fprintf(stdout, "serving %d URI-Rs, %d mementos on http://%s\n", st.URIRs, st.Captures, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
