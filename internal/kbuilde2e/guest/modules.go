package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// loadModules loads each module with finit_module. A module that fails is
// tried again after the others have loaded, as long as that makes
// progress (a module may need another's symbols). It returns the error of
// each module that did not load, by name.
func loadModules(mods []module) map[string]error {
	pending := append([]module(nil), mods...)
	failed := map[string]error{}
	for len(pending) > 0 {
		var again []module
		for _, m := range pending {
			if err := loadModule(m.Path); err != nil {
				failed[m.Name] = err
				again = append(again, m)
				continue
			}
			delete(failed, m.Name)
		}
		if len(again) == len(pending) {
			break
		}
		pending = again
	}
	return failed
}

func loadModule(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = unix.FinitModule(int(f.Fd()), "", 0)
	if errors.Is(err, unix.EEXIST) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finit_module %s: %w", path, err)
	}
	return nil
}
