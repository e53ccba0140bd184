//go:build tools

// Package deps pins the module's third-party dependencies while the packages
// that import them are being written; it is never compiled.
package deps

import (
	_ "github.com/edsrzf/mmap-go"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/hashicorp/golang-lru/v2"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/schollz/progressbar/v3"
	_ "go.etcd.io/bbolt"
	_ "golang.org/x/net/idna"
	_ "golang.org/x/net/publicsuffix"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/singleflight"
	_ "golang.org/x/time/rate"
	_ "golang.org/x/text/unicode/norm"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/plotter"
	_ "gonum.org/v1/plot/vg"
	_ "golang.org/x/term"
)
