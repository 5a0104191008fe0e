package sysbench

import (
	"testing"

	"vmbench/dialect"
)

// TestRunConnConfig: a MySQL run drops the driver's write timeout unless
// the parameters set one; the caller's parameters are not changed, and
// SQLite is left alone.
func TestRunConnConfig(t *testing.T) {
	c := DefaultConfig()
	got := runConnConfig(c.DialectConfig())
	if got.Params["writeTimeout"] != "0" {
		t.Errorf("params %v, want writeTimeout=0", got.Params)
	}
	c.Conn.Params = map[string]string{"writeTimeout": "5s", "innodb_lock_wait_timeout": "1"}
	if got := runConnConfig(c.DialectConfig()); got.Params["writeTimeout"] != "5s" || len(got.Params) != 2 {
		t.Errorf("params %v, want the caller's writeTimeout kept", got.Params)
	}
	c.Conn.Params = map[string]string{"innodb_lock_wait_timeout": "1"}
	dcfg := c.DialectConfig()
	if got := runConnConfig(dcfg); got.Params["writeTimeout"] != "0" || got.Params["innodb_lock_wait_timeout"] != "1" {
		t.Errorf("params %v", got.Params)
	}
	if len(dcfg.Params) != 1 {
		t.Errorf("caller's params changed: %v", dcfg.Params)
	}
	c.Conn.Driver, c.Conn.Params = dialect.SQLite, nil
	if got := runConnConfig(c.DialectConfig()); len(got.Params) != 0 {
		t.Errorf("sqlite params %v, want none added", got.Params)
	}
}
