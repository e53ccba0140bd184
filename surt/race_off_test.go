//go:build !race

package surt

const raceEnabled = false
