//go:build unix

package cdxj

import (
	"os"
	"syscall"
)

// adviseSequential tells the kernel that m is read front to back, so that
// it reads ahead.
func adviseSequential(m []byte) { _ = syscall.Madvise(m, syscall.MADV_SEQUENTIAL) }

// release gives the pages of m[from:to] (rounded down to whole pages at
// to) back to the kernel: resident memory stays bounded while the page
// cache keeps the data. It returns the new release mark.
func release(m []byte, from, to int) int {
	end := to &^ (os.Getpagesize() - 1)
	if end > from {
		_ = syscall.Madvise(m[from:end], syscall.MADV_DONTNEED)
		return end
	}
	return from
}
