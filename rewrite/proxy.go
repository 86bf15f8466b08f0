package rewrite

// migrateProxies moves reverse proxies (nginx) in front of app servers to a
// shared Unix socket. Not implemented yet: see issue 7.
func (pl *planner) migrateProxies() {}
