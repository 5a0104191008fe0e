package tpcc

import "strconv"

// Operation indexes and names in Results, one per transaction type
// (go-tpc's lower-case names).
const (
	opNewOrder = iota
	opPayment
	opOrderStatus
	opDelivery
	opStockLevel
	numOps
)

// OpNames are the Result operation names, by op index.
var OpNames = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// Counter indexes; counterNames holds their Result names. Workers add to
// them through their hist.Handle; the audit reads them from the Result.
const (
	ctrRetries           = iota // transactions restarted after a deadlock, lock timeout or busy database
	ctrDeadlocks                // MySQL 1213, SQL Server 1205, PostgreSQL 40P01
	ctrLockTimeouts             // MySQL 1205, SQL Server 1222, PostgreSQL 55P03, SQLite busy
	ctrReconnects               // connections lost and opened again
	ctrSerialization            // PostgreSQL 40001 under REPEATABLE READ or SERIALIZABLE
	ctrRollbacks                // New-Orders rolled back on purpose (unused item, TPC-C 2.4.1.4)
	ctrOrderLines               // order lines of committed and rolled-back New-Orders
	ctrRemoteLines              // of which supplied by another warehouse
	ctrRemotePayments           // Payments of a customer of another warehouse
	ctrPaymentsByName           // Payments that selected the customer by last name
	ctrOrderStatusByName        // Order-Status that selected the customer by last name
	ctrDeliverySkipped          // districts a Delivery found without a new order
	ctrDeliveryDistricts        // districts Deliveries processed or skipped
	ctrOlCnt5                   // New-Orders with 5 lines; 6..15 follow
	numCounters          = ctrOlCnt5 + 11
)

var counterNames = func() []string {
	names := []string{"retries", "errors.deadlock", "errors.lock_timeout", "reconnects", "errors.serialization",
		"new_order.rollbacks", "new_order.lines", "new_order.remote_lines", "payment.remote",
		"payment.by_last_name", "order_status.by_last_name", "delivery.skipped", "delivery.districts"}
	for n := 5; n <= 15; n++ {
		names = append(names, "new_order.ol_cnt_"+strconv.Itoa(n))
	}
	return names
}()

// Counter names of a Result that the report and the audit read.
const (
	// CounterNOPMDelta is the change of sum(d_next_o_id) over the measured
	// window: New-Orders committed, as HammerDB's NOPM counts them.
	CounterNOPMDelta = "d_next_o_id.delta"
	// CounterNOPMAfterEnd is how many New-Orders the transactions in
	// flight at the window's end committed after it: the end reading,
	// taken once they have finished, holds them, the Runner does not count
	// them, and CounterNOPMDelta leaves them out (see window).
	CounterNOPMAfterEnd = "d_next_o_id.after_end"
)
