package main

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/mementokit/mementokit/aggregator"
)

// memoryPerBudget is the Go memory limit the aggregator sets per byte of
// its body memory budget (-body-memory), plus memoryBase: the resident
// memory of a server whose every answer is at the cap is 4 to 5 times the
// budget at the default 256 MiB and 7 times at 64 MiB without a limit
// (internal/bench/bodymemory: 8 parallel uncached 1 M-memento TimeMaps,
// VmHWM 1,197 MB and 465 to 482 MB), of which the live heap is about 4
// times: a limit of 6 times the budget (1.6 GB by default) leaves the
// collector room and keeps the process within it.
const (
	memoryPerBudget = 6
	memoryBase      = 64 << 20
)

// memoryLimit is the Go runtime's soft memory limit (runtime/debug
// SetMemoryLimit) for a body memory budget of budget bytes (0: the
// default, aggregator.DefaultBodyMemory): 0 (none set here) when
// gomemlimit, the GOMEMLIMIT variable, is set (the runtime honours it)
// or the budget has no limit (negative), else memoryPerBudget times the
// budget plus memoryBase.
func memoryLimit(budget int64, gomemlimit string) int64 {
	if budget == 0 {
		budget = aggregator.DefaultBodyMemory
	}
	if gomemlimit != "" || budget < 0 {
		return 0
	}
	return memoryPerBudget*budget + memoryBase
}

// setMemoryLimit sets the Go memory limit for the body memory budget
// (memoryLimit) and logs it at info, or logs that GOMEMLIMIT decides.
func setMemoryLimit(budget int64, log *slog.Logger) {
	env := os.Getenv("GOMEMLIMIT")
	if limit := memoryLimit(budget, env); limit > 0 {
		debug.SetMemoryLimit(limit)
		log.Info("Go memory limit set from the body memory budget", "memory_limit_bytes", limit)
	} else if env != "" {
		log.Info("Go memory limit from GOMEMLIMIT", "gomemlimit", env)
	}
}
