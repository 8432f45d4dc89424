package engine

import (
	"context"
	"testing"
)

// TestStartWaits: Wait returns what New does, the engine or its error, as
// often as it is called.
func TestStartWaits(t *testing.T) {
	c := Start(context.Background(), defaults())
	e1, err1 := c.Wait()
	e2, err2 := c.Wait()
	if err1 != nil || e1 == nil || e2 != e1 || err2 != nil {
		t.Fatalf("Wait: %v, %v; again: %v, %v; want one engine twice", e1, err1, e2, err2)
	}

	cfg := defaults()
	cfg.Modules = []Module{{Name: "broken.rego", Source: "package btfgate.rules.broken\n\nexclude contains x if {\n"}}
	_, want := New(context.Background(), cfg)
	e, err := Start(context.Background(), cfg).Wait()
	if e != nil || err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("Wait on a broken module: %v, %v; want New's error %v", e, err, want)
	}
}
