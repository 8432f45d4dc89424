package engine

import (
	"fmt"
	"io"
	"sync"

	"github.com/open-policy-agent/opa/v1/topdown/print"
)

// printHook writes what policies print() to w, one line per call, as
// "FILE:ROW: TEXT". Batches evaluate concurrently: lines are whole but
// their order between batches follows the evaluation.
type printHook struct {
	mu sync.Mutex
	w  io.Writer
}

func (h *printHook) Print(ctx print.Context, msg string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	where := "policy"
	if l := ctx.Location; l != nil {
		where = fmt.Sprintf("%s:%d", l.File, l.Row)
	}
	_, err := fmt.Fprintf(h.w, "%s: %s\n", where, msg)
	return err
}
