package recovery

import (
	"fmt"
	"runtime/debug"
)

// Panic carries a recovered panic value together with the stack where it
// happened, for a handler run in a goroutine of its own (the aggregator's
// request deadline) to hand it to the goroutine serving the request:
// panicking again there would show only the stack of the re-panic, and the
// original one is the stack worth logging.
type Panic struct {
	Value any
	Stack []byte
}

// String shows both, for when no Middleware is outside and net/http logs
// the panic itself.
func (p *Panic) String() string {
	return fmt.Sprintf("%v\n%s", p.Value, p.Stack)
}

// Capture wraps a recovered value with the current stack; it must be
// called from the deferred function that recovered it, while the panicking
// frames are still on the stack.
func Capture(p any) *Panic {
	if hp, ok := p.(*Panic); ok {
		return hp // already captured by an inner goroutine
	}
	return &Panic{Value: p, Stack: debug.Stack()}
}
