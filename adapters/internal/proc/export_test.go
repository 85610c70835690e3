package proc

// GroupAlive reports whether process group pgid has a live (non-zombie)
// member, for tests that check nothing survives.
var GroupAlive = groupAlive
