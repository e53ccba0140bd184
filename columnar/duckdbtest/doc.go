// Package duckdbtest runs the queries of columnar/sql with DuckDB (through
// its Go bindings, github.com/duckdb/duckdb-go, which link DuckDB's C++
// library with cgo) over tables package columnar exports, and compares
// every value with this module's own figures: summary.Daily's daily series,
// summary.Summarizer's counts, and the rows read back with columnar.
//
// It is a module of its own so that importers of mementokit never download
// DuckDB: a requirement in the root go.mod is part of every importer's
// module graph (go mod download, go mod graph and the go.sum lines all see
// it), and the bindings carry a prebuilt static library of some 100 MB per
// platform. Run its tests from this folder: go test ./... (CI does, see
// .ci/run).
package duckdbtest
