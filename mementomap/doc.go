// Package mementomap builds, compacts, looks up, evaluates and merges
// MementoMaps: small sorted UKVS files that say what a web archive holds,
// so that a Memento aggregator can skip archives that certainly hold
// nothing for a URI (Alam, Weigle, Nelson, Melo, Bicho, Gomes, "MementoMap
// Framework for Flexible and Adaptive Web Archive Profiling", JCDL 2019;
// the project's restatement is MEMENTOMAP.md).
//
// # Keys and frequencies
//
// A data line is "KEY FREQUENCY". KEY is an HxPx key (a SURT without its
// query, "com,example)/a/b") or a wildcard key: "com,example)/a/*" covers
// "com,example)/a" and everything below it, "com,example,*" covers the host
// and all its subdomains, "com,*" a whole TLD and "*" everything. FREQUENCY
// is "[URI-M count]/[URI-R count]" with optional "+ - ~" bounds
// ([ukvs.Frequency]); "0" means the archive holds nothing under that key,
// even when a wildcard above it says otherwise.
//
// # Lookup
//
// [Open] memory-maps a map; [Map.LookupSURT] (and [Map.Lookup] for URLs)
// tries the keys of [AppendLookupKeys], most specific first, each by binary
// search, and the first present decides. Zero false negatives is the
// contract: a map may say "maybe" wrongly, never "absent" wrongly.
//
// # Compaction
//
// [Compact] rolls dense subtrees up into wildcard keys in one streaming
// pass (the paper's Figure 3) with the power-law cutoffs of its Table 8,
// weighted by the host and path compaction factors W_h and W_p. A compacted
// map compacts again, so the paper's chain of 36 maps over weight pairs in
// {4, 2, 1, 0.5, 0.25, 0} is a loop of Compact calls. Public suffixes are
// never rolled up ("uk,co,*" would claim every British company) unless the
// reference tool's behaviour is asked for ([CompactOptions.Reference]).
//
// # The reference tool's bugs, and what this package does instead
//
// The paper's tool (oduwsdl/MementoMap 0.1.0b2) cannot find the first line
// of a map, crashes on keys after the last line, re-orders keys when it cuts
// queries without re-sorting, reuses a stale output offset after a roll-up
// (truncated, disordered output when a subdomain follows a host whose paths
// rolled up), drops keys without a comma ("localhost", IPv6 hosts), drops
// frequencies other than plain integers and header lines, and rolls whole
// public suffixes up. Each of these has a golden test here.
package mementomap
