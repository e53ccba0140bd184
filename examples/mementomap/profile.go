package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/profilereport"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/mementomap"
)

// profile writes the paper's analysis of an archive (mementomap.Profile)
// as JSON, and with -html as a self-contained report.
func (e *env) profile(args []string) error {
	fs, parse := e.indexFlags("profile", "INDEX...")
	out := fs.String("o", "-", "output JSON file ('-' for standard output)")
	htmlOut := fs.String("html", "", "also write a self-contained HTML report (tables and charts) to this file")
	top := fs.Int("top", 25, "most archived URI-Rs listed (Table 5)")
	noCompact := fs.Bool("no-compaction", false, "leave out Figure 9 (the compaction run of the baseline map)")
	hcf := fs.Float64("hcf", 1, "host compaction factor W_h of the Figure 9 run")
	pcf := fs.Float64("pcf", 1, "path compaction factor W_p of the Figure 9 run")
	opts := buildFlags(fs, false)
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("profile: no index given (run with -h for usage)")
	}
	bo, err := opts()
	if err != nil {
		return err
	}
	if err := checkDistinctOutputs("profile", "-o", *out, "-html", *htmlOut); err != nil {
		return err
	}
	if err := checkOutput("profile", *out, fs.Args()...); err != nil {
		return err
	}
	if err := checkOutput("profile", *htmlOut, fs.Args()...); err != nil {
		return err
	}
	bo.Logger = e.log
	co := mementomap.DefaultCompactOptions()
	co.HostFactor, co.PathFactor = *hcf, *pcf
	o := mementomap.ProfileOptions{BuildOptions: bo, Top: *top, Compaction: co, NoCompaction: *noCompact}
	ins, closeAll, err := e.openIndexes(fs.Args(), "profile")
	if err != nil {
		return err
	}
	defer closeAll()
	start := time.Now()
	p, err := mementomap.Profile(e.ctx, ins, &o)
	if err != nil {
		return err
	}
	err = e.writeOutput(*out, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	})
	if err != nil {
		return err
	}
	if *htmlOut != "" {
		pg, err := profilereport.Report(profilereport.Input{Profile: p, Sources: fs.Args(), Generator: "mementomap profile", TopURIRs: *top})
		if err != nil {
			return err
		}
		if err := report.Save(*htmlOut, pg); err != nil {
			return err
		}
	}
	ix := p.Index
	e.log.Info("profile done", "records", ix.Lines, "urims", ix.URIMs, "urirs", ix.URIRs, "hxpx_keys", ix.HxPxKeys,
		"hosts", ix.Hosts, "bad", ix.Bad, "seconds", time.Since(start).Seconds())
	if ix.Bad > 0 {
		e.log.Warn("bad index lines skipped (-skip-bad)", "skipped_lines", ix.Bad, "examples", ix.BadExamples)
	}
	if p.Fit != nil {
		e.log.Info("fitted cutoffs", "host_a", p.Fit.Host.A, "host_k", p.Fit.Host.K, "host_r2", p.Fit.Host.R2,
			"path_a", p.Fit.Path.A, "path_k", p.Fit.Path.K, "path_r2", p.Fit.Path.R2, "lines", ix.Lines, "hosts", ix.Hosts, "sizes", fitSizes)
		if err := p.Fit.Check(); err != nil {
			e.log.Warn("compact -fit refuses this fit (-fit-fallback takes the paper's a and k for a layer refused)", "err", err)
		}
	} else {
		e.log.Warn("no cutoff fit", "err", p.FitError)
	}
	return nil
}

// fitSizes says how much input a fit near the paper's constants takes
// (internal/spec/MEMENTOMAP.md, "Fitting the cutoffs").
const fitSizes = "on cdxgen's Arquivo.pt shape (seed 1) the path fit is within 7 % of a and 0.04 of k of the paper's Table 8 fit (18.82, 1.086) from 300,000 index lines on; " +
	"the host fit is refused below about 4 M lines (4,400 hosts) and at 16 M is a 23.1, k 0.94 against the paper's 16.3, 0.71"

// withFit returns o with the power laws fitted to the profile at path
// (readFit). A layer whose fit [mementomap.PowerLawFit.Check] refuses is an
// error, or with fallback keeps o's a and k (the paper's), with a warning.
func (e *env) withFit(o mementomap.CompactOptions, path string, fallback bool) (mementomap.CompactOptions, error) {
	f, err := readFit(path)
	if err != nil {
		return o, err
	}
	if err := f.Check(); err != nil && !fallback {
		return o, fmt.Errorf("%s: %s (%s; -fit-fallback takes the paper's a and k for a layer refused)", path, strings.TrimPrefix(err.Error(), "mementomap: "), fitSizes)
	}
	fitted := *o.WithFit(f)
	if err := f.Host.Check(); err != nil {
		fitted.HostAlpha, fitted.HostK = o.HostAlpha, o.HostK
		e.log.Warn("host fit refused, the paper's host a and k taken (-fit-fallback)", "profile", path, "err", err, "host_a", o.HostAlpha, "host_k", o.HostK)
	}
	if err := f.Path.Check(); err != nil {
		fitted.PathAlpha, fitted.PathK = o.PathAlpha, o.PathK
		e.log.Warn("path fit refused, the paper's path a and k taken (-fit-fallback)", "profile", path, "err", err, "path_a", o.PathAlpha, "path_k", o.PathK)
	}
	e.log.Info("cutoffs", "profile", path, "host_a", fitted.HostAlpha, "host_k", fitted.HostK,
		"host_r2", f.Host.R2, "path_a", fitted.PathAlpha, "path_k", fitted.PathK, "path_r2", f.Path.R2)
	return fitted, nil
}

// readFit reads a profile written by "mementomap profile" and fits the
// cutoffs to it; rows no profile holds are refused, naming the field
// ([mementomap.ArchiveProfile.CheckDepths]).
func readFit(path string) (mementomap.CutoffFit, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return mementomap.CutoffFit{}, err
	}
	var p mementomap.ArchiveProfile
	if err := json.Unmarshal(b, &p); err != nil {
		return mementomap.CutoffFit{}, fmt.Errorf("%s: not a profile of mementomap profile: %w", path, err)
	}
	if len(p.HostDepth) == 0 && len(p.PathDepth) == 0 {
		return mementomap.CutoffFit{}, fmt.Errorf("%s: no host_depth or path_depth rows: not a profile of mementomap profile", path)
	}
	f, err := mementomap.FitCutoffs(&p, 0)
	if err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// explicit reports whether the flag name was given on the command line.
func explicit(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
