package encode

// future is a value and an error that one goroutine sets once and others
// wait for: every hand-off of an encode between goroutines goes through
// one (the base BTF, the ELF side, each unit's walk, the dedup and
// variable goroutines' results). Whatever the setter wrote before resolve
// is visible to every goroutine after wait returns.
type future[T any] struct {
	done chan struct{}
	val  T
	err  error
}

func newFuture[T any]() *future[T] { return &future[T]{done: make(chan struct{})} }

// goFuture runs fn on a goroutine of its own and returns its future.
func goFuture[T any](fn func() (T, error)) *future[T] {
	f := newFuture[T]()
	go func() { f.resolve(fn()) }()
	return f
}

// resolved returns a future already set to val and err.
func resolved[T any](val T, err error) *future[T] {
	f := newFuture[T]()
	f.resolve(val, err)
	return f
}

// resolve sets the value and the error and wakes the waiters. It is called
// once.
func (f *future[T]) resolve(val T, err error) {
	f.val, f.err = val, err
	close(f.done)
}

// wait blocks until the future is resolved and returns its value and
// error.
func (f *future[T]) wait() (T, error) {
	<-f.done
	return f.val, f.err
}
