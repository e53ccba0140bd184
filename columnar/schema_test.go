package columnar

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// specSchema reads one of Common Crawl's table schemas (Spark JSON form)
// from internal/spec/cc-index-table: column name → Spark type.
func specSchema(t *testing.T, file string) (names []string, types map[string]string) {
	t.Helper()
	b, err := os.ReadFile("../internal/spec/cc-index-table/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Fields []struct{ Name, Type string }
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	types = map[string]string{}
	for _, f := range s.Fields {
		names = append(names, f.Name)
		types[f.Name] = f.Type
	}
	return names, types
}

// parquetType renders a leaf column's physical and logical type as Spark
// writes each of its types.
func parquetType(f parquet.Field) string {
	lt := ""
	if l := f.Type().LogicalType(); l != nil {
		lt = l.String()
	}
	switch k := f.Type().Kind(); {
	case k == parquet.ByteArray && lt == "STRING":
		return "string"
	case k == parquet.Int32 && lt == "INT(16,true)":
		return "short"
	case k == parquet.Int32 && (lt == "" || lt == "INT(32,true)"):
		return "integer"
	case k == parquet.Int64 && lt == "TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS)":
		return "timestamp"
	case k == parquet.Int64 && (lt == "" || lt == "INT(64,true)"):
		return "long"
	}
	return f.Type().String() + " " + lt
}

// TestSchemaFollowsCommonCrawl: every column of Common Crawl's flat schema
// is in the capture table, in the same order, with the Parquet type Spark
// writes for its type in the End of Term schema (which widens offset and
// length to long), or else in the flat schema.
func TestSchemaFollowsCommonCrawl(t *testing.T) {
	flatNames, flat := specSchema(t, "cc-index-schema-flat.json")
	_, eot := specSchema(t, "eot-index-schema.json")
	ours := map[string]parquet.Field{}
	var order []string
	for _, f := range parquet.SchemaOf(Row{}).Fields() {
		ours[f.Name()] = f
		order = append(order, f.Name())
	}
	for i, name := range flatNames {
		f, ok := ours[name]
		if !ok {
			t.Errorf("column %s of cc-index-table is missing", name)
			continue
		}
		if order[i] != name {
			t.Errorf("column %d is %s, cc-index-table has %s", i, order[i], name)
		}
		want := flat[name]
		if w, ok := eot[name]; ok {
			want = w
		}
		if got := parquetType(f); got != want {
			t.Errorf("column %s: Parquet type %s, want Spark's %s", name, got, want)
		}
	}
	if len(order) != len(flatNames)+7 {
		t.Errorf("%d columns, want the %d of cc-index-table and 7 more", len(order), len(flatNames))
	}
}
