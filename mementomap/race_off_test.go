//go:build !race

package mementomap

// raceEnabled: the race detector slows CPU-bound tests about tenfold.
const raceEnabled = false
