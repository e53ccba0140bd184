package mementomap

import (
	"bufio"

	"github.com/mementokit/mementokit/ukvs"
)

// MaxLineLength is the longest map line, in bytes without its end, that
// [Compact] and [Merge] read and write, and the longest lookup
// [Map.LookupAll] answers: ukvs.DefaultMaxLineLength (16 MiB), the one line
// limit of every reader of maps and indexes in the module, so that no tool
// writes a map that another refuses.
const MaxLineLength = ukvs.DefaultMaxLineLength

// errLongLine is readLine's report of a line past its limit.
type errLongLine struct{}

func (errLongLine) Error() string { return "line too long" }

// readLine returns the next line of br, its end included (the last line
// may have none), and the error of the read that ended it (nil, io.EOF, or
// a read error). Past max bytes (plus a CRLF) it stops at once with
// errLongLine, without reading the rest of the line, so that a line that
// never ends (/dev/zero) costs max bytes and no more. long is the buffer
// for lines longer than br's.
func readLine(br *bufio.Reader, long *[]byte, max int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	*long = append((*long)[:0], line...)
	for err == bufio.ErrBufferFull {
		if len(*long) > max+2 {
			return nil, errLongLine{}
		}
		line, err = br.ReadSlice('\n')
		*long = append(*long, line...)
	}
	return *long, err
}

// bodyLen returns the length of line without its end ("\n", "\r\n").
func bodyLen(line []byte) int {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return n
}

// nameOf returns the name of a reader or writer that has one (an *os.File,
// an atomicfile.File, a reader of internal/cli), else def.
func nameOf(v any, def string) string {
	if n, ok := v.(interface{ Name() string }); ok && n.Name() != "" {
		return n.Name()
	}
	return def
}
