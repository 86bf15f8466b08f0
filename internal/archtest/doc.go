// Package archtest holds the tests that pin uds-migrate's structure (issue
// #22): the direction of imports between its packages, that no package
// grows past a quarter of the code, and that no type gathers the methods
// of several concerns. It has no code of its own.
package archtest
