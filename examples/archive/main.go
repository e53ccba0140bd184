// Command archive serves CDX and CDXJ index files as a Memento archive
// (RFC 7089) with a MementoMap at /.well-known/mementomap, built and
// compacted from the same index at start-up (see internal/archiveserver).
//
//	archive -addr 127.0.0.1:8081 index.cdxj more.cdx.gz
//	archive -latency 200ms -fault-rate 0.05 -slow-body 1s index.cdxj
//
// Endpoints: /timemap/link/{URI-R}, /timegate/{URI-R},
// /{YYYYMMDDhhmmss}/{URI-R} (also /{YYYYMMDDhhmmss}id_/{URI-R}, the Wayback
// "identity" form that pywb and the Internet Archive serve and MemGator's
// /memento/proxy asks for), /.well-known/mementomap, and the pywb CDX
// server API at /cdx and /{id}/cdx over the same indexes (see README.md).
// Slow and idle clients are cut off: -read-header-timeout (10s),
// -read-timeout (30s), -write-timeout (60s plus the injected delays) and
// -idle-timeout (2m) for a keep-alive connection between requests. At most
// -max-conns (256) connections are open at once, and so as many requests
// in flight; a client beyond waits until one closes.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("archive", run) }
