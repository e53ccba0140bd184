package mysqltest

import (
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestDatabase(t *testing.T) {
	var name string
	t.Run("private", func(t *testing.T) {
		dsn := Database(t, "mkmysqltest_")
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		name = cfg.DBName
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var got string
		if err := db.QueryRow("SELECT DATABASE()").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != name || len(name) != len("mkmysqltest_")+12 {
			t.Errorf("connected to %q, want the private database %q", got, name)
		}
	})
	// After the subtest's cleanup the database is gone.
	admin := Database(t, "mkmysqltest_")
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s still exists after the test ended", name)
	}
}
