package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// procFD is where Linux shows a process's open files; linking an unnamed
// file needs it.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

// openUnnamed opens a new file without a name in dir (O_TMPFILE).
func openUnnamed(dir string) (*os.File, error) {
	if !procFD() {
		return nil, errNoUnnamed
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), nil
}

// linkUnnamed gives the unnamed file f a temporary name in dir and
// returns it.
func linkUnnamed(f *os.File, dir, base string) (string, error) {
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+"-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(uint64(randUint32()), 10))
		err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", &os.LinkError{Op: "link", Old: src, New: name, Err: err}
		}
	}
	return "", &os.LinkError{Op: "link", Old: src, New: dir, Err: unix.EEXIST}
}

// processAlive reports whether a process with this PID exists.
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
