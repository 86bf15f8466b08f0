// Package analyze reads a loaded compose project once, before anything is
// planned, and says what it holds (Topology): its PostgreSQL services with
// their socket mounts, the clients the run selects, the connection values
// that reach a database over TCP (Edges) with the edits certain to be
// needed beside them (Repairs), and what to say about the values it leaves
// (Notes). It edits nothing and reports nothing: the migration's steps
// (package rewrite), validate and revert only read its result.
//
// Options, what a run of migrate, validate or revert is asked to do, and
// Result, what migrate and revert return, live here because all three
// commands start from the analysis.
package analyze
