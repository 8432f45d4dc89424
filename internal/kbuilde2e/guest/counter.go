package main

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
)

// counters is an array map of uint64 counts, one slot per program.
type counters struct {
	m *ebpf.Map
}

func newCounters(slots uint32) (*counters, error) {
	m, err := ebpf.NewMap(&ebpf.MapSpec{
		Name:       "e2e_counts",
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  8,
		MaxEntries: slots,
	})
	if err != nil {
		return nil, fmt.Errorf("create counter map: %w", err)
	}
	return &counters{m: m}, nil
}

func (c *counters) Close() error { return c.m.Close() }

// get reads slot's count.
func (c *counters) get(slot uint32) (uint64, error) {
	var v uint64
	if err := c.m.Lookup(slot, &v); err != nil {
		return 0, fmt.Errorf("read counter %d: %w", slot, err)
	}
	return v, nil
}

// countInstructions is a program that adds one to the map's slot:
// r0 = bpf_map_lookup_elem(map, &slot); if r0 { *(u64 *)r0 += 1 } return 0.
func countInstructions(mapFD int, slot uint32) asm.Instructions {
	return asm.Instructions{
		asm.StoreImm(asm.RFP, -4, int64(slot), asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, mapFD),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}

// attach loads a counting tracing program of the given attach type
// (fentry or fexit) for the kernel function fn, found by name in vmlinux's
// BTF or a loaded module's, and attaches it. Close the link to detach.
func (c *counters) attach(at ebpf.AttachType, fn string, slot uint32) (link.Link, error) {
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Name:         "e2e_count",
		Type:         ebpf.Tracing,
		AttachType:   at,
		AttachTo:     fn,
		Instructions: countInstructions(c.m.FD(), slot),
		License:      "GPL",
	})
	if err != nil {
		return nil, fmt.Errorf("load %s program for %s: %w", at, fn, err)
	}
	// The link holds its own reference to the program.
	defer prog.Close()
	l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: at})
	if err != nil {
		return nil, fmt.Errorf("attach %s to %s: %w", at, fn, err)
	}
	return l, nil
}

// countCalls attaches a counter to fn, runs trigger n times and returns
// how many calls the program counted meanwhile.
func (c *counters) countCalls(at ebpf.AttachType, fn string, slot uint32, n int, trigger func() error) (uint64, error) {
	l, err := c.attach(at, fn, slot)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	before, err := c.get(slot)
	if err != nil {
		return 0, err
	}
	for i := 0; i < n; i++ {
		if err := trigger(); err != nil {
			return 0, fmt.Errorf("trigger %s: %w", fn, err)
		}
	}
	after, err := c.get(slot)
	if err != nil {
		return 0, err
	}
	return after - before, nil
}
