//go:build race

package surt

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation counts through the pool are not exact.
const raceEnabled = true
