package engine

import "context"

// Compiling is an Engine being compiled on a goroutine of its own: a module
// encode reads its input (mapping and relocating a module take about as long
// as compiling the default policies) while the policies compile,
// and waits for them only when it decides.
type Compiling struct {
	done chan struct{}
	eng  *Engine
	err  error
}

// Start begins New(ctx, cfg) on a goroutine of its own.
func Start(ctx context.Context, cfg Config) *Compiling {
	c := &Compiling{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.eng, c.err = New(ctx, cfg)
	}()
	return c
}

// Wait returns what New returned, once it has.
func (c *Compiling) Wait() (*Engine, error) {
	<-c.done
	return c.eng, c.err
}
