package mysqltest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScript(t *testing.T) {
	in := strings.Join([]string{
		"-- a comment",
		"drop database if exists aggregator;",
		"use aggregator;",
		"delimiter |",
		"",
		"CREATE TABLE t (",
		"  a int -- not a comment line",
		") ENGINE=MyISAM|",
		"CREATE TRIGGER x BEFORE INSERT ON t",
		"FOR EACH ROW",
		"BEGIN",
		"SET NEW.a = 1;",
		"END |",
		"DELIMITER ;",
		"SELECT 1;  ",
	}, "\n")
	got, err := Script(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []Statement{
		{2, "drop database if exists aggregator"},
		{3, "use aggregator"},
		{6, "CREATE TABLE t (\n  a int -- not a comment line\n) ENGINE=MyISAM"},
		{9, "CREATE TRIGGER x BEFORE INSERT ON t\nFOR EACH ROW\nBEGIN\nSET NEW.a = 1;\nEND"},
		{15, "SELECT 1"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"SELECT 1", "delimiter\nSELECT 1;", "delimiter |\nSELECT 1;"} {
		if _, err := Script(bad); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("Script(%q): err %v, want one naming a line", bad, err)
		}
	}
}
