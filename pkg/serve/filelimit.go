package serve

const (
	// fallbackOpenFiles is assumed when the limit cannot be read: a
	// common default hard limit.
	fallbackOpenFiles = 4096
	// maxOpenFiles bounds what an unlimited RLIMIT_NOFILE counts for, so
	// the caps derived from it stay numbers a table can hold.
	maxOpenFiles = 1 << 24
)
