//go:build !linux

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

func openUnnamed(string) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(*os.File, string, string) (string, error) { return "", errNoUnnamed }

// processAlive reports whether a process with this PID exists; where that
// cannot be told, it says yes (the file is then removed only by age).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, os.ErrPermission) || errors.Is(err, errors.ErrUnsupported)
}

func syncDir(string) {}
