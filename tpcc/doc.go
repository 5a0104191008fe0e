// Package tpcc is a TPC-C-like workload on the vmbench driver core: the
// nine-table schema, a deterministic parallel loader, the five
// transactions of TPC-C clause 2 (one file each), terminals with keying and
// think times that share a pool of connections, the consistency checks of
// clause 3.3.2 and the audit of clause 9.2's input distributions.
//
// It follows TPC-C revision 5.11 where it shapes the numbers: the
// cardinalities and value rules of the load, NURand with the A of each
// field and a stored C-Load whose C-Run obeys the C-delta rule, a shuffled
// 23-card deck per terminal, home warehouses and districts, 1% New-Order
// rollbacks on an unused item, 1% remote order lines that update the
// remote warehouse's stock, 15% remote payments, 60% customer selection by
// last name. It is not a TPC-C implementation and its figures are not
// TPC-C results: there is no TP monitor or terminal I/O, Delivery runs
// synchronously rather than deferred, and nothing is audited.
//
// Databases: MySQL, MariaDB and Percona; SQL Server (through
// github.com/microsoft/go-mssqldb; its statements are tested as text only,
// never against a server in CI); SQLite, embedded. What differs between
// them is in package dialect.
package tpcc
