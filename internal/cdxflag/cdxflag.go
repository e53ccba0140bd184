// Package cdxflag holds the command-line flags with which the example
// tools read a CDX server (cdxj.OpenServer): which part of the archive to
// fetch (-url-prefix, -domain) and how to ask for it (-cdx-flavor,
// -cdx-rate, -user-agent, -cdx-page-size, and -cdx-timeout and
// -cdx-deadline, how long to wait for an answer). Every tool that takes index
// inputs takes them, so that an http(s) URL among its inputs reads the same
// way in each.
package cdxflag

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
)

// Add registers the flags on fs and returns the function that turns them,
// once fs is parsed, into the ServerOptions for cdxj.OpenOptions.Server
// (the defaults when none is set, with ScopeHint naming -url-prefix and
// -domain, so that a CDX server read whole says which flag to give). Its error names the flag: -url-prefix and
// -domain together, a URL or host that cannot be canonicalized, an unknown
// -cdx-flavor, a negative page size, or a -cdx-timeout or -cdx-deadline
// of 0 or less; it is a [cli.Usage] error (exit
// status 2), as a bad flag is.
func Add(fs *flag.FlagSet) func() (*cdxj.ServerOptions, error) {
	return AddNamed(fs, "cdx-page-size")
}

// AddNamed is Add with the page-size flag named pageSizeName (without its
// '-') instead of cdx-page-size, for a tool whose -cdx-page-size already
// means something else (archive pages its own CDX API answers with it).
func AddNamed(fs *flag.FlagSet, pageSizeName string) func() (*cdxj.ServerOptions, error) {
	prefix := fs.String("url-prefix", "", "for a CDX server input (http:// or https:// URL): read the captures of the URLs that start with this one (matchType=prefix)")
	domain := fs.String("domain", "", "for a CDX server input: read the captures of this host and its subdomains (matchType=domain)")
	flavor := fs.String("cdx-flavor", "auto", "for a CDX server input: its dialect, auto, pywb (also Common Crawl), wayback (the Internet Archive's) or outbackcdx")
	rate := fs.Float64("cdx-rate", 1, "for a CDX server input: at most this many requests per second (0 or less: no limit)")
	agent := fs.String("user-agent", "", "for a CDX server input: the User-Agent sent (default "+cdxj.DefaultUserAgent+")")
	pageSize := fs.Int(pageSizeName, 0, "for a paged CDX server input: ZipNum blocks per page (0: the server's default)")
	timeout := fs.Duration("cdx-timeout", cdxj.DefaultTimeout, "for a CDX server input: longest wait for an answer's headers, and for each read of its body, in one attempt (a request is tried 5 times)")
	deadline := fs.Duration("cdx-deadline", cdxj.DefaultDeadline, "for a CDX server input: longest wait for an answer to one request (a page or batch) over all its attempts and the waits between them, and for the whole of a small answer (a page count, an error message); a server that answers, if with an error, gets a new one")
	options := func() (*cdxj.ServerOptions, error) {
		set := false
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "url-prefix", "domain", "cdx-flavor", "cdx-rate", "user-agent", "cdx-timeout", "cdx-deadline", pageSizeName:
				set = true
			}
		})
		if !set {
			return &cdxj.ServerOptions{ScopeHint: ScopeHint}, nil
		}
		if *prefix != "" && *domain != "" {
			return nil, errors.New("-url-prefix and -domain: give one of them")
		}
		fl, err := cdxj.ParseFlavor(*flavor)
		if err != nil {
			return nil, fmt.Errorf("-cdx-flavor: %w", err)
		}
		if *pageSize < 0 {
			return nil, fmt.Errorf("-%s %d: want 0 or more blocks", pageSizeName, *pageSize)
		}
		if *timeout <= 0 || *deadline <= 0 {
			return nil, fmt.Errorf("-cdx-timeout %v, -cdx-deadline %v: want durations above 0", *timeout, *deadline)
		}
		o := &cdxj.ServerOptions{Flavor: fl, Rate: *rate, UserAgent: *agent, PageSize: *pageSize, ScopeHint: ScopeHint, Timeout: *timeout, Deadline: *deadline}
		if *rate == 0 {
			o.Rate = -1 // 0 is the library's default; on the command line it means no limit
		}
		switch {
		case *prefix != "":
			o.Scope = &cdxj.Request{URL: *prefix, Match: cdxj.MatchPrefix}
		case *domain != "":
			d := strings.TrimPrefix(*domain, "*.")
			o.Scope = &cdxj.Request{URL: d, Match: cdxj.MatchDomain}
		}
		if o.Scope != nil {
			if _, err := o.Scope.Query(); err != nil {
				name := "-url-prefix"
				if *domain != "" {
					name = "-domain"
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		return o, nil
	}
	return func() (*cdxj.ServerOptions, error) {
		o, err := options()
		return o, cli.AsUsage(err)
	}
}

// ScopeHint is the cdxj.ServerOptions.ScopeHint of the tools: the flags
// that give a CDX server input its scope.
const ScopeHint = "-url-prefix URL or -domain HOST"

// IsURL reports whether an input name is a CDX server URL (http:// or
// https://), as cdxj.Open reads it.
func IsURL(name string) bool {
	l := strings.ToLower(name)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// Check returns an error when o chooses what to fetch (-url-prefix,
// -domain) and no input is a CDX server URL: the flags would be ignored.
// The error is a [cli.Usage] error (exit status 2).
func Check(o *cdxj.ServerOptions, inputs []string) error {
	if o == nil || o.Scope == nil {
		return nil
	}
	for _, n := range inputs {
		if IsURL(n) {
			return nil
		}
	}
	return cli.Usagef("-url-prefix and -domain choose what to read from a CDX server, and no input is one (an http:// or https:// URL)")
}
