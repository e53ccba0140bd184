//go:build !unix

package cdxj

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
