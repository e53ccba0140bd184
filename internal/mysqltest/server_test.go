//go:build linux

package mysqltest

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerKeepsSharedTmpdir: a private server keeps its temporary files
// in its own folder, so that its start (mariadbd deletes every "#sql*"
// file of its tmpdir when it starts) leaves the files of other servers'
// tmpdir, /tmp for the shared one, alone.
func TestServerKeepsSharedTmpdir(t *testing.T) {
	probe, err := os.CreateTemp("", "#sql-mysqltest-probe-")
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	defer os.Remove(probe.Name())
	s := NewServer(t)
	db, err := sql.Open("mysql", s.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tmpdir string
	if err := db.QueryRow("SELECT @@tmpdir").Scan(&tmpdir); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tmpdir, s.dir+string(filepath.Separator)) {
		t.Errorf("private server's tmpdir %q, want a folder under %s", tmpdir, s.dir)
	}
	if _, err := os.Stat(probe.Name()); err != nil {
		t.Errorf("%s after a private server started: %v", probe.Name(), err)
	}
}
