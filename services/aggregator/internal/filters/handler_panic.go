package filters

import (
	"fmt"
	"runtime/debug"
)

// handlerPanic carries a panic from the goroutine WithRequestDeadline runs a
// handler in to the goroutine serving the request, together with the stack
// where it happened: panicking again there would show only the stack of the
// re-panic, and the original one is the stack worth logging.
type handlerPanic struct {
	value any
	stack []byte
}

// String shows both, for when no WithPanicRecovery is outside and net/http
// logs the panic itself.
func (p *handlerPanic) String() string {
	return fmt.Sprintf("%v\n%s", p.value, p.stack)
}

// capturePanic wraps a recovered value with the current stack; it must be
// called from the deferred function that recovered it, while the panicking
// frames are still on the stack.
func capturePanic(p any) *handlerPanic {
	if hp, ok := p.(*handlerPanic); ok {
		return hp // already captured by an inner deadline filter
	}
	return &handlerPanic{value: p, stack: debug.Stack()}
}
