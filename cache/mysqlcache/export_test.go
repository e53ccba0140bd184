package mysqlcache

// The statements, for the EXPLAIN test.
var (
	SQLGet         = sqlGet
	SQLStale       = sqlStale
	SQLClaimSelect = sqlClaimSelect
)
